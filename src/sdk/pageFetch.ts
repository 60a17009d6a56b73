/**
 * `ctx.fetch` / `ctx.fetchJSON`: same-origin requests with the page's cookies and a timeout. Every
 * failure is a ToolError, so a tool can let it propagate and the agent still gets a useful message.
 */
import { PAGE_FETCH_TIMEOUT_MS } from '../protocol/constants'
import { categoryForStatus, isRetryableStatus, ToolError } from './toolError'
import type { FetchJSONInit } from './types'

/** What the helpers need from the page: its origin and its fetch. Tests pass their own. */
export interface FetchEnv {
  /** The page URL relative paths resolve against (normally `location.href`; read on every request). */
  baseUrl: string
  fetch: typeof globalThis.fetch
  timeoutMs?: number
}

export function createPageFetch(env: FetchEnv) {
  const origin = new URL(env.baseUrl).origin
  const timeoutMs = env.timeoutMs ?? PAGE_FETCH_TIMEOUT_MS

  async function pageFetch(input: string | URL, init: RequestInit = {}): Promise<Response> {
    const url = resolveSameOrigin(input, env.baseUrl, origin)
    const method = (init.method ?? 'GET').toUpperCase()
    const label = `${method} ${url.pathname}${url.search}`
    const timeout = new AbortController()
    const timer = setTimeout(() => timeout.abort(), timeoutMs)
    const signal = init.signal ? anySignal([init.signal, timeout.signal]) : timeout.signal
    let response: Response
    try {
      response = await env.fetch(url.href, { ...init, credentials: 'include', signal })
    } catch (error) {
      if (timeout.signal.aborted)
        throw new ToolError(`${label} did not answer within ${Math.round(timeoutMs / 1000)} s`, {
          code: 'fetch_timeout',
          category: 'timeout',
          retryable: true,
        })
      const reason = error instanceof Error ? error.message : String(error)
      throw new ToolError(`${label} failed: ${reason}`, {
        code: 'network_error',
        category: 'internal',
        retryable: true,
      })
    } finally {
      clearTimeout(timer)
    }
    if (!response.ok) {
      throw new ToolError(
        `${label} answered ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`,
        {
          code: `http_${response.status}`,
          category: categoryForStatus(response.status),
          retryable: isRetryableStatus(response.status),
        },
      )
    }
    return response
  }

  async function fetchJSON<T = unknown>(input: string | URL, init: FetchJSONInit = {}): Promise<T> {
    const { json, ...rest } = init
    const headers = new Headers(rest.headers)
    if (!headers.has('accept')) headers.set('accept', 'application/json')
    if (json !== undefined) headers.set('content-type', 'application/json')
    const response = await pageFetch(input, {
      ...rest,
      headers,
      ...(json !== undefined ? { body: JSON.stringify(json), method: rest.method ?? 'POST' } : {}),
    })
    const text = await response.text()
    if (text.trim() === '') return null as T
    try {
      return JSON.parse(text) as T
    } catch {
      throw new ToolError(`${String(input)} did not return JSON (got: ${text.slice(0, 80)})`, {
        code: 'invalid_response',
        category: 'internal',
      })
    }
  }

  return { fetch: pageFetch, fetchJSON }
}

function resolveSameOrigin(input: string | URL, baseUrl: string, origin: string): URL {
  let url: URL
  try {
    url = new URL(input, baseUrl)
  } catch {
    throw new ToolError(`ctx.fetch: "${String(input)}" is not a valid URL`, {
      code: 'invalid_url',
      category: 'validation',
    })
  }
  if (url.origin !== origin)
    throw new ToolError(`ctx.fetch only reaches the page's own origin (${origin}); refused ${url.origin}`, {
      code: 'cross_origin',
      category: 'validation',
    })
  return url
}

function anySignal(signals: AbortSignal[]): AbortSignal {
  const controller = new AbortController()
  for (const s of signals) {
    if (s.aborted) {
      controller.abort(s.reason)
      break
    }
    s.addEventListener('abort', () => controller.abort(s.reason), { once: true })
  }
  return controller.signal
}
