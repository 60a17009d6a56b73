/**
 * `ctx.fetch` / `ctx.fetchJSON`: same-origin requests with the page's cookies and a timeout. Every
 * failure is a ToolError, so a tool can let it propagate and the agent still gets a useful message.
 *
 * Nothing here is looked up on the page's globals or prototypes at call time (pageIntrinsics), and no
 * promise is ever resolved with a value whose `then` the page could define: requests go out through
 * callbacks (pageTransport), the promises handed to the plugin carry the browser's own `then` and
 * `constructor` as own properties, and the values they resolve with carry an own `then: undefined`.
 */
import { PAGE_FETCH_TIMEOUT_MS } from '../protocol/constants'
import {
  append,
  call,
  intrinsics as I,
  ownPromise,
  promiseTampering,
  str,
  unthenable,
} from './pageIntrinsics'
import { fetchTransport, xhrTransport, type PageReply, type PageTransport } from './pageTransport'
import { categoryForStatus, isRetryableStatus, ToolError } from './toolError'
import type { FetchJSONInit } from './types'

/** What the helpers need from the page: its origin and a way to send. Tests pass their own. */
export interface FetchEnv {
  /** The page URL relative paths resolve against (normally `location.href`; read on every request). */
  baseUrl: string
  /** How requests leave. Default: over `fetch` when given (Node, vm tests), else XMLHttpRequest. */
  transport?: PageTransport
  fetch?: typeof globalThis.fetch
  timeoutMs?: number
}

type Answered = Extract<PageReply, { ok: true }>

/** Statuses whose responses carry no body (a Response cannot be built with one). */
const NULL_BODY = (status: number): boolean => status === 204 || status === 205

/**
 * `onTampered` hears of a promise built-in the page changed (see promiseTampering) when an answer
 * arrived; that request then fails with `page_tampered` instead of resolving.
 */
export function createPageFetch(env: FetchEnv, onTampered?: (what: string) => void) {
  const origin = urlPart(new I.URL(env.baseUrl), I.urlOrigin, 'origin')
  const timeoutMs = env.timeoutMs ?? PAGE_FETCH_TIMEOUT_MS
  const transport = env.transport ?? (env.fetch ? fetchTransport(env.fetch) : xhrTransport)

  /** Sends one same-origin request; `done` gets a 2xx reply, `fail` a ToolError. */
  function send(
    input: string | URL,
    init: RequestInit,
    as: 'text' | 'bytes',
    done: (reply: Answered) => void,
    fail: (error: ToolError) => void,
  ): void {
    let url: URL
    try {
      url = resolveSameOrigin(input, env.baseUrl, origin)
    } catch (error) {
      return fail(error as ToolError)
    }
    const method = call<string>(I.stringToUpperCase, str(init.method ?? 'GET'))
    const label = `${method} ${urlPart(url, I.urlPathname, 'pathname')}${urlPart(url, I.urlSearch, 'search')}`
    transport(
      {
        url: urlPart(url, I.urlHref, 'href'),
        method,
        headers: headerPairs(init.headers),
        body: init.body ?? null,
        as,
        signal: init.signal ?? null,
        timeoutMs,
      },
      (reply) => {
        // The handler goes on in this task: if the page patched promises now, what it returns
        // could be forged, so the answer is refused (the page cannot act again before it returns).
        const what = onTampered ? promiseTampering() : null
        if (what !== null) {
          onTampered?.(what)
          return fail(
            new ToolError(`the page replaced ${what} while ${label} was on its way: reload the tab`, {
              code: 'page_tampered',
              category: 'internal',
            }),
          )
        }
        if (!reply.ok) {
          if (reply.reason === 'timeout')
            return fail(
              new ToolError(
                `${label} did not answer within ${call<number>(I.mathRound, Math, timeoutMs / 1000)} s`,
                { code: 'fetch_timeout', category: 'timeout', retryable: true },
              ),
            )
          return fail(
            new ToolError(`${label} failed: ${reply.message}`, {
              code: 'network_error',
              category: 'internal',
              retryable: true,
            }),
          )
        }
        const { status, statusText } = reply
        if (status < 200 || status > 299)
          return fail(
            new ToolError(`${label} answered ${status}${statusText ? ` ${statusText}` : ''}`, {
              code: `http_${status}`,
              category: categoryForStatus(status),
              retryable: isRetryableStatus(status),
            }),
          )
        done(reply)
      },
    )
  }

  function pageFetch(input: string | URL, init: RequestInit = {}): Promise<Response> {
    return ownPromise<Response>((resolve, reject) =>
      send(
        input,
        init,
        'bytes',
        (reply) => {
          try {
            resolve(unthenable(toResponse(reply)))
          } catch (error) {
            reject(
              new ToolError(`${str(input)} gave an answer that cannot be read`, {
                code: 'invalid_response',
                category: 'internal',
                cause: error,
              }),
            )
          }
        },
        reject,
      ),
    )
  }

  function fetchJSON<T = unknown>(input: string | URL, init: FetchJSONInit = {}): Promise<T> {
    const { json, ...rest } = init
    const headers = new (I.Headers ?? Headers)(rest.headers)
    const has = (name: string): boolean =>
      I.headersHas ? call<boolean>(I.headersHas, headers, name) : headers.has(name)
    const set = (name: string, value: string): void =>
      I.headersSet ? call(I.headersSet, headers, name, value) : headers.set(name, value)
    if (!has('accept')) set('accept', 'application/json')
    if (json !== undefined) set('content-type', 'application/json')
    const request: RequestInit = {
      ...rest,
      headers,
      ...(json !== undefined
        ? { body: call<string>(I.stringify, JSON, json), method: rest.method ?? 'POST' }
        : {}),
    }
    return ownPromise<T>((resolve, reject) =>
      send(
        input,
        request,
        'text',
        (reply) => {
          const text = typeof reply.body === 'string' ? reply.body : ''
          if (call<string>(I.stringTrim, text) === '') return resolve(null as T)
          let value: T
          try {
            value = call<T>(I.parse, JSON, text)
          } catch {
            return reject(
              new ToolError(
                `${str(input)} did not return JSON (got: ${call<string>(I.stringSlice, text, 0, 80)})`,
                { code: 'invalid_response', category: 'internal' },
              ),
            )
          }
          resolve(unthenable(value))
        },
        reject,
      ),
    )
  }

  return { fetch: pageFetch, fetchJSON }
}

/** The request headers as pairs, read with the captured Headers and its forEach. */
function headerPairs(init: HeadersInit | undefined): Array<[string, string]> {
  const pairs: Array<[string, string]> = []
  if (init === undefined) return pairs
  const headers = new (I.Headers ?? Headers)(init)
  const each = (value: string, name: string): void => append(pairs, [name, value])
  if (I.headersForEach) call(I.headersForEach, headers, each)
  else headers.forEach(each)
  return pairs
}

/** The Response ctx.fetch resolves with, built from the reply with the captured constructors. */
function toResponse(reply: Answered): Response {
  const ResponseCtor = I.Response ?? Response
  const headers = new (I.Headers ?? Headers)()
  for (let i = 0; i < reply.headers.length; i++) {
    const [name, value] = reply.headers[i]!
    try {
      if (I.headersAppend) call(I.headersAppend, headers, name, value)
      else headers.append(name, value)
    } catch {
      // A header the Headers class refuses (set-cookie is never exposed anyway): left out.
    }
  }
  const response = new ResponseCtor(NULL_BODY(reply.status) ? null : reply.body, {
    status: reply.status,
    statusText: reply.statusText,
    headers,
  })
  // A built Response has no url of its own: give it the address that answered.
  I.defineProperty(response, 'url', { value: reply.url, enumerable: false, configurable: false })
  return response
}

/** A URL field read with the getter captured at document_start (a page may redefine URL.prototype). */
function urlPart(url: URL, get: unknown, name: 'href' | 'origin' | 'pathname' | 'search'): string {
  return get ? call<string>(get, url) : url[name]
}

function resolveSameOrigin(input: string | URL, baseUrl: string, origin: string): URL {
  let url: URL
  try {
    // A URL object is read with the captured href getter, never its (page-owned) toString.
    const text = typeof input === 'string' ? input : urlPart(input, I.urlHref, 'href')
    url = new I.URL(text, baseUrl)
  } catch {
    throw new ToolError(`ctx.fetch: "${str(input)}" is not a valid URL`, {
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
