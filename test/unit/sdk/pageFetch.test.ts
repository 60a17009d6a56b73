// ctx.fetch / ctx.fetchJSON against the real demo site over loopback.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startDemoSite } from '../../../examples/demo-site/server.mjs'
import { createPageFetch } from '../../../src/sdk/pageFetch'
import { ToolError } from '../../../src/sdk/toolError'
import { demoLogin } from '../../fixtures/plugins/pageStub'

let site: Awaited<ReturnType<typeof startDemoSite>>
let cookie: string
const seen: RequestInit[] = []

beforeAll(async () => {
  site = await startDemoSite({ port: 0 })
  cookie = await demoLogin(site.url)
})
afterAll(() => site?.close())

function page(options: { signedIn?: boolean; timeoutMs?: number } = {}) {
  return createPageFetch({
    baseUrl: `${site.url}/notes/page`,
    timeoutMs: options.timeoutMs,
    // The browser sends the cookie for credentials 'include'; Node's fetch needs it spelled out.
    fetch: (input, init = {}) => {
      seen.push(init)
      const headers = new Headers(init.headers)
      if (options.signedIn !== false && init.credentials === 'include') headers.set('cookie', cookie)
      return fetch(input, { ...init, headers })
    },
  })
}

async function toolError(promise: Promise<unknown>): Promise<ToolError> {
  const error = await promise.catch((e: unknown) => e)
  expect(error).toBeInstanceOf(ToolError)
  return error as ToolError
}

describe('ctx.fetch and ctx.fetchJSON', () => {
  it('resolves relative paths against the page and sends the page cookies', async () => {
    expect(await page().fetchJSON('/api/me')).toEqual({ user: 'alice' })
    expect(seen.at(-1)?.credentials).toBe('include')
  })

  it('sends a JSON body and defaults to POST', async () => {
    const created = await page().fetchJSON<{ note: { title: string } }>('/api/notes', {
      json: { title: 'From a test' },
    })
    expect(created.note.title).toBe('From a test')
    expect(seen.at(-1)?.method).toBe('POST')
    expect(new Headers(seen.at(-1)?.headers).get('content-type')).toBe('application/json')
  })

  it('resolves relative URLs against the page address at the time of the request', async () => {
    let href = `${site.url}/app/`
    const spa = createPageFetch({
      get baseUrl() {
        return href
      },
      fetch: (input, init = {}) => fetch(input, { ...init, headers: { cookie } }),
    })
    expect(await spa.fetchJSON('../api/me')).toEqual({ user: 'alice' })
    href = `${site.url}/app/inbox/`
    expect(await toolError(spa.fetchJSON('../api/me'))).toMatchObject({
      code: 'http_404',
      message: 'GET /app/api/me answered 404 Not Found',
    })
  })

  it('refuses another origin before any request is made', async () => {
    const before = seen.length
    const error = await toolError(page().fetch('https://example.com/api'))
    expect(error).toMatchObject({ code: 'cross_origin', category: 'validation' })
    expect(error.message).toBe(
      `ctx.fetch only reaches the page's own origin (${site.url}); refused https://example.com`,
    )
    expect(seen.length).toBe(before)
  })

  it('refuses the same host on another port', async () => {
    const other = site.url.replace(/:\d+$/, ':1')
    expect(await toolError(page().fetch(`${other}/api/me`))).toMatchObject({ code: 'cross_origin' })
  })

  it.each([
    [401, 'auth', false],
    [403, 'auth', false],
    [404, 'not_found', false],
    [429, 'rate_limit', true],
    [500, 'internal', true],
    [503, 'internal', true],
    [400, 'internal', false],
  ])('maps HTTP %i to category %s (retryable %s)', async (status, category, retryable) => {
    const error = await toolError(page().fetchJSON(`/api/status/${status}`))
    expect(error).toMatchObject({ code: `http_${status}`, category, retryable })
    expect(error.message).toMatch(new RegExp(`^GET /api/status/${status} answered ${status}`))
  })

  it('reports a signed-out page as an auth error', async () => {
    const error = await toolError(page({ signedIn: false }).fetchJSON('/api/notes'))
    expect(error).toMatchObject({
      code: 'http_401',
      category: 'auth',
      message: 'GET /api/notes answered 401 Unauthorized',
    })
  })

  it('gives up after the timeout with a retryable timeout error', async () => {
    const error = await toolError(page({ timeoutMs: 50 }).fetch('/api/slow?ms=3000'))
    expect(error).toMatchObject({ code: 'fetch_timeout', category: 'timeout', retryable: true })
  })

  it('reports a body that is not JSON', async () => {
    const error = await toolError(page().fetchJSON('/'))
    expect(error).toMatchObject({ code: 'invalid_response', category: 'internal' })
    expect(error.message).toContain('/ did not return JSON (got: <!doctype html>')
  })

  it('reports a network failure as retryable', async () => {
    const broken = createPageFetch({
      baseUrl: site.url,
      fetch: () => Promise.reject(new TypeError('fetch failed')),
    })
    expect(await toolError(broken.fetch('/api/me'))).toMatchObject({
      code: 'network_error',
      message: 'GET /api/me failed: fetch failed',
      retryable: true,
    })
  })
})
