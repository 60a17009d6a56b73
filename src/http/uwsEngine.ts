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
import {
  EVENT_STREAM_MAX_BUFFERED_BYTES,
  PEER_MAX_BUFFERED_BYTES,
  type EngineFactory,
  type EngineOptions,
  type HttpEngine,
  type HttpReply,
} from './engine'
import { createBodyCounter, isSupportedMethod, mayHaveBody } from './nodeEngine'
import { errorResponse, payloadTooLargeResponse } from './responses'
import { writeSoon } from './uwsOutbox'
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
  /** Called once when the exchange ends for any reason (the engine's bookkeeping, an event stream's sink). */
  onEnd: (() => void) | undefined
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
    const target = query ? `${req.getUrl()}?${query}` : req.getUrl()
    const header = headerReader(req)
    const ex: Exchange = { res, aborted: false, responded: false, ended: false, onEnd: undefined }
    res.onAborted(() => {
      ex.aborted = true
      finish(ex)
    })
    if (openCount() >= limits.maxConnections)
      return send(ex, errorResponse('service_unavailable', 'too many open connections'))
    // uWS hands over any method token as sent; only the ones the front knows go on.
    if (!isSupportedMethod(method))
      return send(
        ex,
        errorResponse('method_not_allowed', `${method} is not supported`, { connection: 'close' }),
      )
    // The request object dies when this returns: the body is collected now (counted against the cap,
    // the request timeout cutting off a slow sender), whether or not the handler reads it.
    let timer: ReturnType<typeof setTimeout> | undefined
    const counter = createBodyCounter(limits.maxBodyBytes)
    let body: Promise<string> = Promise.resolve('')
    if (mayHaveBody(method)) {
      const chunks: Buffer[] = []
      let settle: { resolve(text: string): void; reject(error: Error): void } | undefined
      body = new Promise<string>((resolve, reject) => (settle = { resolve, reject }))
      body.catch(() => undefined)
      res.onData((chunk, isLast) => {
        // After the answer went out, the rest of the body is dropped unread.
        if (ex.aborted || ex.ended || settle === undefined) return
        if (!counter.add(chunk.byteLength)) {
          clearTimeout(timer)
          settle.reject(new BridgeError(BridgeErrorCode.payloadTooLarge, 'request body too large'))
          settle = undefined
          send(ex, payloadTooLargeResponse(limits.maxBodyBytes))
          return
        }
        chunks.push(Buffer.from(chunk.slice(0)))
        if (!isLast) return
        clearTimeout(timer)
        settle.resolve(Buffer.concat(chunks).toString('utf8'))
        settle = undefined
      })
      timer = setTimeout(() => {
        if (settle && !ex.aborted && !ex.ended) closeExchange(ex)
      }, limits.requestTimeoutMs)
    }
    exchanges.add(ex)
    ex.onEnd = () => exchanges.delete(ex)
    // Asked of the socket (a syscall) only when read, and only while the response is still usable.
    let remoteAddress: string | undefined
    options
      .handler({
        method,
        target,
        header,
        get remoteAddress() {
          if (remoteAddress === undefined && !ex.aborted && !ex.ended)
            remoteAddress = Buffer.from(res.getRemoteAddressAsText()).toString()
          return remoteAddress ?? ''
        },
        text: () => body,
        get aborted() {
          return ex.aborted
        },
      })
      .then((reply) => send(ex, reply))
      .catch((error: unknown) => {
        logger.error('request failed before reaching the front:', error)
        if (!ex.aborted && !ex.ended) closeExchange(ex)
      })
  }

  function serveUpgrade(res: Uws.HttpResponse, req: Uws.HttpRequest, context: Uws.us_socket_context_t): void {
    const header = headerReader(req)
    const target = req.getUrl()
    const key = req.getHeader('sec-websocket-key')
    const extensions = req.getHeader('sec-websocket-extensions')
    const ex: Exchange = { res, aborted: false, responded: false, ended: false, onEnd: undefined }
    res.onAborted(() => (ex.aborted = true))
    if (openCount() >= limits.maxConnections)
      return send(ex, errorResponse('service_unavailable', 'too many open connections'))
    const remoteAddress = Buffer.from(res.getRemoteAddressAsText()).toString()
    options
      .upgrade({
        method: 'GET',
        target,
        header,
        remoteAddress,
        text: () => Promise.resolve(''),
        get aborted() {
          return ex.aborted
        },
      })
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
        if (!ex.aborted && !ex.ended) ex.res.close()
        ex.aborted = true
        finish(ex)
      }
      exchanges.clear()
      return Promise.resolve()
    },
  }
}

/** The request's headers by lower-case name; forEach sees every line, so a duplicate Host arrives joined. */
function headerReader(req: Uws.HttpRequest): (name: string) => string | null {
  const headers = new Map<string, string>()
  req.forEach((key, value) => {
    const earlier = headers.get(key)
    headers.set(key, earlier === undefined ? value : `${earlier}, ${value}`)
  })
  return (name) => headers.get(name) ?? null
}

/** Closes the connection; an answer still queued (./uwsOutbox.ts) is then dropped, never written. */
function closeExchange(ex: Exchange): void {
  ex.res.close()
  ex.aborted = true
  finish(ex)
}

function finish(ex: Exchange): void {
  const onEnd = ex.onEnd
  ex.onEnd = undefined
  onEnd?.()
}

/**
 * Writes a reply. A text body goes out with its head in one corked write. An event stream's head
 * leaves with an SSE comment line (uWS sends headers only together with body bytes; every SSE parser
 * ignores comments), then what is written in one turn leaves in one corked write. A client that
 * leaves EVENT_STREAM_MAX_BUFFERED_BYTES unread is cut off.
 */
function send(ex: Exchange, reply: HttpReply): void {
  if (ex.aborted || ex.responded) return
  ex.responded = true
  const { res } = ex
  const closeAfter = reply.headers.connection?.toLowerCase() === 'close'
  const head = () => {
    res.writeStatus(`${reply.status} ${STATUS_CODES[reply.status] ?? ''}`)
    for (const [key, value] of Object.entries(reply.headers))
      if (key !== 'content-length' && key !== 'connection' && key !== 'transfer-encoding')
        res.writeHeader(key, value)
  }
  const stream = reply.body
  if (stream === undefined || typeof stream === 'string') {
    // In one send, under a cork of its own (./uwsOutbox.ts); a client gone meanwhile is not written to.
    writeSoon(() => {
      if (ex.aborted) return finish(ex)
      res.cork(() => {
        head()
        res.end(stream ?? '', closeAfter)
      })
      ex.ended = true
      finish(ex)
    })
    return
  }
  let queued = ': stream open\n\n'
  let ending = false
  let flushing = false
  /** Bytes handed to uWS since it last said it could take more. */
  let backlog = 0
  let waiting = false
  let headSent = false
  const flush = () => {
    flushing = false
    if (ex.aborted || ex.ended) return
    const text = queued
    queued = ''
    res.cork(() => {
      if (!headSent) {
        headSent = true
        head()
      }
      const ok = text === '' || res.write(text)
      if (waiting || !ok) backlog += Buffer.byteLength(text)
      if (!ok && !waiting) {
        waiting = true
        res.onWritable(() => {
          waiting = false
          backlog = 0
          return true
        })
      }
      if (ending) {
        res.end(undefined, closeAfter)
        ex.ended = true
      }
    })
    if (ex.ended) return finish(ex)
    if (backlog > EVENT_STREAM_MAX_BUFFERED_BYTES) {
      logger.warn(`closing an event stream its client is not reading (${megabytes(backlog)} MB unread)`)
      ex.aborted = true
      res.close()
      finish(ex)
    }
  }
  const schedule = () => {
    if (flushing) return
    flushing = true
    writeSoon(flush)
  }
  schedule()
  stream.open({
    write(text) {
      if (ex.aborted || ex.ended || ending) return
      queued += text
      schedule()
    },
    end() {
      if (ex.aborted || ex.ended) return
      ending = true
      schedule()
    },
    onClose(listener) {
      if (ex.aborted || ex.ended) return listener()
      const earlier = ex.onEnd
      ex.onEnd = () => (earlier?.(), listener())
    },
  })
}

const megabytes = (bytes: number) => Math.round(bytes / 1024 / 1024)
