/**
 * `ctx.fetch` / `ctx.fetchJSON`: same-origin requests with the page's cookies and a timeout. Every
 * failure is a ToolError, so a tool can let it propagate and the agent still gets a useful message.
 */
import { PAGE_FETCH_TIMEOUT_MS } from '../protocol/constants'
import { call, intrinsics as I } from './pageIntrinsics'
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
  const origin = urlPart(new I.URL(env.baseUrl), I.urlOrigin, 'origin')
  const timeoutMs = env.timeoutMs ?? PAGE_FETCH_TIMEOUT_MS

  async function pageFetch(input: string | URL, init: RequestInit = {}): Promise<Response> {
    const url = resolveSameOrigin(input, env.baseUrl, origin)
    const method = (init.method ?? 'GET').toUpperCase()
    const label = `${method} ${urlPart(url, I.urlPathname, 'pathname')}${urlPart(url, I.urlSearch, 'search')}`
    const timeout = new AbortController()
    const timer = call<ReturnType<typeof setTimeout>>(
      I.setTimeout,
      globalThis,
      () => timeout.abort(),
      timeoutMs,
    )
    const signal = init.signal ? anySignal([init.signal, timeout.signal]) : timeout.signal
    let response: Response
    try {
      response = await env.fetch(urlPart(url, I.urlHref, 'href'), { ...init, credentials: 'include', signal })
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
      call(I.clearTimeout, globalThis, timer)
    }
    // Read through the captured getters: a page cannot turn a 404 into a 200.
    const status = I.responseStatus ? call<number>(I.responseStatus, response) : response.status
    const statusText = I.responseStatusText
      ? call<string>(I.responseStatusText, response)
      : response.statusText
    if (status < 200 || status > 299) {
      throw new ToolError(`${label} answered ${status}${statusText ? ` ${statusText}` : ''}`, {
        code: `http_${status}`,
        category: categoryForStatus(status),
        retryable: isRetryableStatus(status),
      })
    }
    return response
  }

  async function fetchJSON<T = unknown>(input: string | URL, init: FetchJSONInit = {}): Promise<T> {
    const { json, ...rest } = init
    const headers = new (I.Headers ?? Headers)(rest.headers)
    const has = (name: string): boolean =>
      I.headersHas ? call<boolean>(I.headersHas, headers, name) : headers.has(name)
    const set = (name: string, value: string): void =>
      I.headersSet ? call(I.headersSet, headers, name, value) : headers.set(name, value)
    if (!has('accept')) set('accept', 'application/json')
    if (json !== undefined) set('content-type', 'application/json')
    const response = await pageFetch(input, {
      ...rest,
      headers,
      ...(json !== undefined
        ? { body: call<string>(I.stringify, JSON, json), method: rest.method ?? 'POST' }
        : {}),
    })
    const text = I.responseText
      ? await call<Promise<string>>(I.responseText, response)
      : await response.text()
    if (/^\s*$/.test(text)) return null as T
    try {
      return call<T>(I.parse, JSON, text)
    } catch {
      throw new ToolError(`${String(input)} did not return JSON (got: ${text.slice(0, 80)})`, {
        code: 'invalid_response',
        category: 'internal',
      })
    }
  }

  return { fetch: pageFetch, fetchJSON }
}

/** A URL field read with the getter captured at document_start (a page may redefine URL.prototype). */
function urlPart(url: URL, get: unknown, name: 'href' | 'origin' | 'pathname' | 'search'): string {
  return get ? call<string>(get, url) : url[name]
}

function resolveSameOrigin(input: string | URL, baseUrl: string, origin: string): URL {
  let url: URL
  try {
    url = new I.URL(input, baseUrl)
  } catch {
    throw new ToolError(`ctx.fetch: "${String(input)}" is not a valid URL`, {
      code: 'invalid_url',
      category: 'validation',
    })
  }
  const target = urlPart(url, I.urlOrigin, 'origin')
  if (target !== origin)
    throw new ToolError(`ctx.fetch only reaches the page's own origin (${origin}); refused ${target}`, {
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
