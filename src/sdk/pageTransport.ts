/**
 * How `ctx.fetch` reaches the network: one request in, one reply to a callback. In a page it is
 * XMLHttpRequest driven only through the methods and getters captured at document_start. Not `fetch`:
 * the browser resolves fetch's promise with the Response, and that resolution looks `then` up on
 * Response.prototype and Object.prototype, which the page can define to hand over a response of its
 * own. Events and callbacks consult no `then`.
 *
 * Outside a browser (unit tests, a plugin's own tests in a vm context) the page's `fetch` is used.
 */
import { append, call, intrinsics as I, settle } from './pageIntrinsics'

export interface PageRequest {
  url: string
  method: string
  headers: ReadonlyArray<readonly [string, string]>
  body: BodyInit | null
  /** `text` for fetchJSON (decoded by the browser), `bytes` for ctx.fetch. */
  as: 'text' | 'bytes'
  /** The plugin's own signal, if it passed one. */
  signal: AbortSignal | null
  timeoutMs: number
}

export type PageReply =
  | {
      ok: true
      status: number
      statusText: string
      /** The address that answered, after redirects. */
      url: string
      headers: ReadonlyArray<readonly [string, string]>
      /** A string when asked `as: 'text'`, else the bytes (null: no body). */
      body: string | ArrayBuffer | null
    }
  | { ok: false; reason: 'timeout' | 'aborted' | 'network'; message: string }

/** Sends `request`; calls `done` exactly once. */
export type PageTransport = (request: PageRequest, done: (reply: PageReply) => void) => void

const aborted = (signal: AbortSignal | null): boolean =>
  signal !== null && (I.signalAborted ? call<boolean>(I.signalAborted, signal) : signal.aborted)

/** XMLHttpRequest with the page's cookies (same origin), through captured built-ins only. */
export function xhrTransport(request: PageRequest, done: (reply: PageReply) => void): void {
  const Xhr = I.XMLHttpRequest
  if (!Xhr) return done({ ok: false, reason: 'network', message: 'this page has no XMLHttpRequest' })
  let finished = false
  const finish = (reply: PageReply): void => {
    if (finished) return
    finished = true
    call(I.clearTimeout, globalThis, timer)
    done(reply)
  }
  const xhr = new Xhr()
  const on = (target: EventTarget, type: string, listener: () => void): void =>
    call(I.addEventListener, target, type, listener)
  const abort = (reason: 'timeout' | 'aborted', message: string): void => {
    finish({ ok: false, reason, message })
    try {
      call(I.xhrAbort, xhr)
    } catch {
      // Already done.
    }
  }
  const timer = call<ReturnType<typeof setTimeout>>(
    I.setTimeout,
    globalThis,
    () => abort('timeout', 'timed out'),
    request.timeoutMs,
  )
  if (aborted(request.signal)) return abort('aborted', 'aborted by the tool')
  if (request.signal) on(request.signal, 'abort', () => abort('aborted', 'aborted by the tool'))
  try {
    call(I.xhrOpen, xhr, request.method, request.url, true)
    if (I.xhrSetResponseType) call(I.xhrSetResponseType, xhr, request.as === 'text' ? 'text' : 'arraybuffer')
    for (let i = 0; i < request.headers.length; i++)
      call(I.xhrSetRequestHeader, xhr, request.headers[i]![0], request.headers[i]![1])
  } catch (error) {
    return finish({ ok: false, reason: 'network', message: errorText(error) })
  }
  on(xhr, 'load', () => {
    // responseType 'text': a string; 'arraybuffer': an ArrayBuffer, or null for an empty body.
    const body = call<string | ArrayBuffer | null>(I.xhrResponse, xhr)
    finish({
      ok: true,
      status: call<number>(I.xhrStatus, xhr),
      statusText: call<string>(I.xhrStatusText, xhr),
      url: call<string>(I.xhrResponseURL, xhr),
      headers: parseHeaders(call<string>(I.xhrGetAllResponseHeaders, xhr)),
      body,
    })
  })
  on(xhr, 'error', () => finish({ ok: false, reason: 'network', message: 'the request failed' }))
  on(xhr, 'abort', () => finish({ ok: false, reason: 'aborted', message: 'aborted' }))
  try {
    call(I.xhrSend, xhr, request.body)
  } catch (error) {
    finish({ ok: false, reason: 'network', message: errorText(error) })
  }
}

/** A transport over a `fetch` function, for contexts without XMLHttpRequest (Node, vm tests). */
export function fetchTransport(fetch: typeof globalThis.fetch): PageTransport {
  return (request, done) => {
    const controller = new AbortController()
    let finished = false
    const finish = (reply: PageReply): void => {
      if (finished) return
      finished = true
      call(I.clearTimeout, globalThis, timer)
      done(reply)
    }
    const timer = call<ReturnType<typeof setTimeout>>(
      I.setTimeout,
      globalThis,
      () => {
        finish({ ok: false, reason: 'timeout', message: 'timed out' })
        controller.abort()
      },
      request.timeoutMs,
    )
    const signal = request.signal
    if (signal) {
      if (signal.aborted) controller.abort()
      else signal.addEventListener('abort', () => controller.abort(), { once: true })
    }
    const failed = (error: unknown): void =>
      finish(
        signal?.aborted
          ? { ok: false, reason: 'aborted', message: 'aborted by the tool' }
          : { ok: false, reason: 'network', message: errorText(error) },
      )
    let pending: unknown
    try {
      pending = fetch(request.url, {
        method: request.method,
        headers: request.headers as Array<[string, string]>,
        body: request.body,
        credentials: 'include',
        signal: controller.signal,
      })
    } catch (error) {
      return failed(error)
    }
    settle(
      pending,
      (value) => {
        const response = value as Response
        const headers: Array<[string, string]> = []
        response.headers.forEach((v, k) => headers.push([k, v]))
        settle(
          request.as === 'text' ? response.text() : response.arrayBuffer(),
          (body) =>
            finish({
              ok: true,
              status: response.status,
              statusText: response.statusText,
              url: response.url,
              headers,
              body: body as string | ArrayBuffer,
            }),
          failed,
        )
      },
      failed,
    )
  }
}

/** `getAllResponseHeaders()` text as pairs, split with captured string methods only. */
function parseHeaders(text: string): Array<[string, string]> {
  const pairs: Array<[string, string]> = []
  let at = 0
  while (at < text.length) {
    let end = call<number>(I.stringIndexOf, text, '\r\n', at)
    if (end === -1) end = text.length
    const line = call<string>(I.stringSlice, text, at, end)
    const colon = call<number>(I.stringIndexOf, line, ':')
    if (colon > 0)
      append(pairs, [
        call<string>(I.stringTrim, call<string>(I.stringSlice, line, 0, colon)),
        call<string>(I.stringTrim, call<string>(I.stringSlice, line, colon + 1)),
      ])
    at = end + 2
  }
  return pairs
}

/** An error's own message (a data property), never through a getter or toString of the page. */
export function errorText(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const message: unknown = I.getOwnPropertyDescriptor(error, 'message')?.value
    if (typeof message === 'string') return message
  }
  return typeof error === 'string' ? error : 'the request failed'
}
