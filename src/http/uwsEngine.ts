/**
 * The `uws` engine: uWebSockets.js, loaded at run time (it is not on the npm registry; a user who
 * installed it gets it, and tests use the dev-dependency build). uWS quirks this file handles: the
 * request object dies when the handler returns (read everything first), a response must not be
 * touched after `onAborted`, writes outside the handler must be corked, and `write` returning false
 * means "wait for onWritable".
 */
import { createRequire } from 'node:module'
import { STATUS_CODES } from 'node:http'
import type * as Uws from 'uWebSockets.js'
import { BridgeError, BridgeErrorCode } from '../errors'
import { log } from '../log'
import { PEER_MAX_BUFFERED_BYTES, type EngineFactory, type EngineOptions, type HttpEngine } from './engine'
import { createBodyCounter, isSupportedMethod, mayHaveBody, requestUrl } from './requestBody'
import { errorResponse, payloadTooLargeResponse } from './responses'
import { createUwsSocket, type UwsSocketData } from './uwsSocket'

const logger = log.withTag('http')
const WS_IDLE_TIMEOUT_S = 60

/** Loads uWebSockets.js, or explains why it cannot. */
export function loadUws(): { ok: true; uws: typeof Uws } | { ok: false; message: string } {
  try {
    return { ok: true, uws: createRequire(import.meta.url)('uWebSockets.js') as typeof Uws }
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error)
    return {
      ok: false,
      message: `uWebSockets.js could not be loaded (${reason}); install it or use BRIDGE_HTTP_ENGINE=node`,
    }
  }
}

interface Exchange {
  res: Uws.HttpResponse
  aborted: boolean
  responded: boolean
  /** res.end() was called: uWS may reuse the response object, so it must not be touched again. */
  ended: boolean
  aborter: AbortController
}

export const createUwsEngine: EngineFactory = (options: EngineOptions): HttpEngine => {
  const loaded = loadUws()
  if (!loaded.ok) throw new BridgeError(BridgeErrorCode.engineUnavailable, loaded.message)
  const uws = loaded.uws
  const { limits } = options
  let port = 0
  let listenSocket: Uws.us_listen_socket | undefined
  const exchanges = new Set<Exchange>()
  const sockets = new Set<Uws.WebSocket<UwsSocketData>>()
  const openCount = () => exchanges.size + sockets.size

  const app = uws.App()

  app.any('/*', (res, req) => {
    try {
      serveRequest(res, req)
    } catch (error) {
      // Nothing may throw out of a uWS callback: it would take the whole process down.
      logger.error('request failed before reaching the front:', error)
      res.close()
    }
  })

  function serveRequest(res: Uws.HttpResponse, req: Uws.HttpRequest): void {
    const method = req.getCaseSensitiveMethod()
    const query = req.getQuery()
    const url = requestUrl(port, query ? `${req.getUrl()}?${query}` : req.getUrl())
    const headers = headersOf(req)
    const ex: Exchange = {
      res,
      aborted: false,
      responded: false,
      ended: false,
      aborter: new AbortController(),
    }
    let bodyDone = !mayHaveBody(method)
    let tooLarge = false
    res.onAborted(() => {
      ex.aborted = true
      ex.aborter.abort()
      exchanges.delete(ex)
    })
    if (openCount() >= limits.maxConnections) {
      void send(ex, errorResponse('service_unavailable', 'too many open connections'))
      return
    }
    // uWS hands over any method token as sent; a Web Request would throw on most of them.
    if (!isSupportedMethod(method)) {
      void send(
        ex,
        errorResponse('method_not_allowed', `${method} is not supported`, { connection: 'close' }),
      )
      return
    }
    let timer: ReturnType<typeof setTimeout> | undefined
    const counter = createBodyCounter(limits.maxBodyBytes)
    let body: ReadableStream<Uint8Array> | null = null
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        res.onData((chunk, isLast) => {
          // After the answer went out, the rest of the body is dropped unread.
          if (tooLarge || ex.aborted || ex.ended) return
          if (!counter.add(chunk.byteLength)) {
            tooLarge = true
            clearTimeout(timer)
            controller.error(new BridgeError(BridgeErrorCode.payloadTooLarge, 'request body too large'))
            ex.aborter.abort()
            void send(ex, payloadTooLargeResponse(limits.maxBodyBytes))
            return
          }
          if (!bodyDone) controller.enqueue(new Uint8Array(chunk.slice(0)))
          if (isLast) {
            clearTimeout(timer)
            if (!bodyDone) controller.close()
            bodyDone = true
          }
        })
      },
    })
    if (!bodyDone) body = stream
    const request = new Request(url, {
      method,
      headers,
      body,
      signal: ex.aborter.signal,
      // @ts-expect-error Node's fetch needs `duplex` for streamed request bodies; the DOM types lack it.
      duplex: 'half',
    })
    exchanges.add(ex)
    // The whole request must arrive within the request timeout; a slow sender is cut off.
    if (!bodyDone)
      timer = setTimeout(() => {
        if (!bodyDone && !ex.aborted && !ex.ended) res.close()
      }, limits.requestTimeoutMs)
    options
      .handler(request, { remoteAddress: Buffer.from(res.getRemoteAddressAsText()).toString() })
      .then((response) => send(ex, response))
      .catch((error: unknown) => {
        logger.error('request failed before reaching the front:', error)
        if (!ex.aborted && !ex.ended) res.close()
      })
      .finally(() => exchanges.delete(ex))
  }

  function serveUpgrade(res: Uws.HttpResponse, req: Uws.HttpRequest, context: Uws.us_socket_context_t): void {
    const headers = headersOf(req)
    const url = requestUrl(port, req.getUrl())
    const key = req.getHeader('sec-websocket-key')
    const extensions = req.getHeader('sec-websocket-extensions')
    const ex: Exchange = {
      res,
      aborted: false,
      responded: false,
      ended: false,
      aborter: new AbortController(),
    }
    res.onAborted(() => (ex.aborted = true))
    if (openCount() >= limits.maxConnections) {
      void send(ex, errorResponse('service_unavailable', 'too many open connections'))
      return
    }
    const remoteAddress = Buffer.from(res.getRemoteAddressAsText()).toString()
    options
      .upgrade(new Request(url, { headers }), { remoteAddress })
      .then((decision) => {
        if (ex.aborted) return
        if (!decision.accept) return send(ex, decision.response)
        const data: UwsSocketData = { onOpen: decision.onOpen, socket: undefined, remoteAddress }
        res.cork(() => res.upgrade(data, key, decision.protocol, extensions, context))
      })
      .catch((error: unknown) => {
        logger.error('upgrade failed before reaching the front:', error)
        if (!ex.aborted) res.close()
      })
  }

  app.ws<UwsSocketData>('/*', {
    // uWS drops a connection whose message passes maxPayloadLength without a close frame (1006). It
    // is set to twice the limit so that a message over the limit is answered like the node engine
    // does, with 1009; only a message over twice the limit is still simply dropped.
    maxPayloadLength: limits.maxPayloadBytes * 2,
    maxBackpressure: PEER_MAX_BUFFERED_BYTES,
    idleTimeout: WS_IDLE_TIMEOUT_S,
    sendPingsAutomatically: true,
    compression: uws.DISABLED,
    upgrade: (res, req, context) => {
      try {
        serveUpgrade(res, req, context)
      } catch (error) {
        logger.error('upgrade failed before reaching the front:', error)
        res.close()
      }
    },
    open: (ws) => {
      sockets.add(ws)
      const data = ws.getUserData()
      const socket = createUwsSocket(ws)
      data.socket = socket
      guarded('open', () => data.onOpen(socket))
    },
    message: (ws, message, isBinary) => {
      if (isBinary) return ws.end(1003, 'text frames only')
      if (message.byteLength > limits.maxPayloadBytes) return ws.end(1009, 'message too big')
      const text = Buffer.from(message).toString('utf8')
      guarded('message', () => ws.getUserData().socket?.deliverMessage(text))
    },
    close: (ws, code, message) => {
      sockets.delete(ws)
      const reason = Buffer.from(message).toString('utf8')
      guarded('close', () => ws.getUserData().socket?.deliverClose(code, reason))
    },
  })

  function guarded(what: string, fn: () => void): void {
    try {
      fn()
    } catch (error) {
      logger.error(`websocket ${what} handler failed:`, error)
    }
  }

  return {
    name: 'uws',
    start: (address) =>
      new Promise((resolve, reject) => {
        app.listen(address.host, address.port, (socket) => {
          if (!socket) {
            reject(
              new BridgeError(
                BridgeErrorCode.portInUse,
                `port ${address.port} on ${address.host} is already in use (is bridge already running? choose another with --port)`,
              ),
            )
            return
          }
          listenSocket = socket
          port = uws.us_socket_local_port(socket)
          resolve({ port })
        })
      }),
    stop: () => {
      if (listenSocket) uws.us_listen_socket_close(listenSocket)
      listenSocket = undefined
      for (const ws of [...sockets]) ws.end(1001, 'server shutting down')
      for (const ex of [...exchanges]) {
        ex.aborter.abort()
        if (!ex.aborted && !ex.ended) ex.res.close()
      }
      exchanges.clear()
      return Promise.resolve()
    },
  }
}

function headersOf(req: Uws.HttpRequest): Headers {
  const headers = new Headers()
  // forEach sees every header line, so a duplicate Host arrives joined and fails the gate.
  req.forEach((key, value) => headers.append(key, value))
  return headers
}

/** How long an event stream's head may wait to leave together with its first event. */
const EVENT_STREAM_HEAD_DELAY_MS = 20
/** A burst of ready body chunks written in one corked write stops at this many bytes. */
const BURST_MAX_BYTES = 64 * 1024
const LATER = Symbol('later')

/** The promise's value if it settles within the current turn (before pending ticks run), else LATER. */
function ifReadyNow<T>(promise: Promise<T>): Promise<T | typeof LATER> {
  return new Promise((resolve, reject) => {
    promise.then(resolve, reject)
    process.nextTick(() => resolve(LATER))
  })
}

/** True if the promise settles within `ms`. */
function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms)
    const settled = () => (clearTimeout(timer), resolve(true))
    promise.then(settled, settled)
  })
}

/**
 * Writes a Response: status and headers, then the body with backpressure; stops if the client leaves.
 * What is ready together (the head, chunks already queued, the end) goes out in one corked write, and
 * an event stream's head waits a moment for its first event (an MCP answer usually follows at once).
 */
async function send(ex: Exchange, response: Response): Promise<void> {
  if (ex.aborted || ex.responded) return void (await response.body?.cancel().catch(() => undefined))
  ex.responded = true
  const { res } = ex
  const closeAfter = response.headers.get('connection')?.toLowerCase() === 'close'
  let headSent = false
  const head = () => {
    if (headSent) return
    headSent = true
    res.writeStatus(`${response.status} ${STATUS_CODES[response.status] ?? ''}`)
    response.headers.forEach((value, key) => {
      if (key !== 'content-length' && key !== 'connection' && key !== 'transfer-encoding')
        res.writeHeader(key, value)
    })
  }
  if (!response.body) {
    res.cork(() => (head(), res.end(undefined, closeAfter), (ex.ended = true)))
    return
  }
  const reader = response.body.getReader()
  ex.aborter.signal.addEventListener('abort', () => void reader.cancel().catch(() => undefined), {
    once: true,
  })
  let pending = reader.read()
  let ok = true
  try {
    if (response.headers.get('content-type')?.startsWith('text/event-stream')) {
      const ready = await settlesWithin(pending, EVENT_STREAM_HEAD_DELAY_MS)
      if (ex.aborted) return
      // uWS sends the header block only together with body bytes. An event stream may stay silent for
      // long, so open it with an SSE comment line (ignored by every SSE parser) to deliver the headers now.
      if (!ready) res.cork(() => (head(), (ok = res.write(': stream open\n\n'))))
    }
    for (;;) {
      if (!ok) await writable(ex)
      if (ex.aborted) return
      // The pending read, then every read that settles within the same turn, up to BURST_MAX_BYTES.
      const chunks: Uint8Array[] = []
      let bytes = 0
      let done = false
      let next: ReadableStreamReadResult<Uint8Array> | typeof LATER = await pending
      while (next !== LATER) {
        if (next.done) {
          done = true
          break
        }
        chunks.push(next.value)
        bytes += next.value.byteLength
        pending = reader.read()
        if (bytes >= BURST_MAX_BYTES) break
        next = await ifReadyNow(pending)
      }
      if (ex.aborted) return
      res.cork(() => {
        head()
        ok = true
        for (const chunk of chunks) ok = res.write(chunk) && ok
        if (done) {
          res.end(undefined, closeAfter)
          ex.ended = true
        }
      })
      if (done) return
    }
  } catch {
    // The body stream failed: end the response so the client is not left hanging.
  }
  if (!ex.aborted && !ex.ended) res.cork(() => (head(), res.end(undefined, closeAfter), (ex.ended = true)))
}

function writable(ex: Exchange): Promise<void> {
  return new Promise((resolve) => {
    if (ex.aborted) return resolve()
    // Resume on the next turn: uWS clears the handler after this callback returns, which would wipe a
    // handler registered by code that ran in the callback's microtasks.
    ex.res.onWritable(() => (setImmediate(resolve), true))
    ex.aborter.signal.addEventListener('abort', () => resolve(), { once: true })
  })
}
