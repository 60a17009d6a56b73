/**
 * The `node` engine: node:http for requests, `ws` (noServer) for upgrades. Always available. Also
 * what both engines check of a request before the front sees it (its method) and the counter of its
 * body bytes (the uws engine imports them from here).
 */
import { createServer, STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http'
import type { Duplex } from 'node:stream'
import { WebSocketServer, type WebSocket } from 'ws'
import { BridgeError, BridgeErrorCode } from '../errors'
import { log } from '../log'
import {
  EVENT_STREAM_MAX_BUFFERED_BYTES,
  PEER_MAX_BUFFERED_BYTES,
  type EngineFactory,
  type EngineOptions,
  type EngineSocket,
  type HttpEngine,
  type HttpReply,
  type HttpRequest,
} from './engine'
import { errorResponse, payloadTooLargeResponse } from './responses'

const logger = log.withTag('http')
const KEEPALIVE_INTERVAL_MS = 30_000

/** Methods a Web Request can carry. Others (TRACE, CONNECT, WebDAV, lower-case spellings) never reach the front. */
const SUPPORTED_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'])

export function isSupportedMethod(method: string): boolean {
  return SUPPORTED_METHODS.has(method)
}

/** Methods whose requests carry no body in the Fetch API. */
export function mayHaveBody(method: string): boolean {
  return method !== 'GET' && method !== 'HEAD'
}

/** Counts body bytes; `add` returns false once the total passes the cap. */
export function createBodyCounter(maxBytes: number): { add(bytes: number): boolean } {
  let total = 0
  return {
    add(bytes) {
      total += bytes
      return total <= maxBytes
    },
  }
}

export const createNodeEngine: EngineFactory = (options: EngineOptions): HttpEngine => {
  const { limits } = options
  let port = 0
  const selectedProtocol = new WeakMap<IncomingMessage, string>()
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: limits.maxPayloadBytes,
    perMessageDeflate: false,
    handleProtocols: (_offered, request) => selectedProtocol.get(request) ?? false,
  })
  const server = createServer({
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    // node checks both timeouts on this interval (default 30 s, too coarse for a 10 s header limit).
    connectionsCheckingInterval: 1_000,
  })
  server.maxConnections = limits.maxConnections

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    serveRequest(req, res).catch((error: unknown) => {
      logger.error('request failed before reaching the front:', error)
      res.destroy()
    })
  })
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    serveUpgrade(req, socket, head).catch((error: unknown) => {
      logger.error('upgrade failed before reaching the front:', error)
      socket.destroy()
    })
  })

  function serveRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? 'GET'
    if (!isSupportedMethod(method)) {
      req.resume()
      writeReply(
        res,
        errorResponse('method_not_allowed', `${method} is not supported`, { connection: 'close' }),
      )
      return Promise.resolve()
    }
    let tooLarge = false
    const counter = createBodyCounter(limits.maxBodyBytes)
    const refuseTooLarge = () => {
      if (tooLarge) return
      tooLarge = true
      if (!res.headersSent) writeReply(res, payloadTooLargeResponse(limits.maxBodyBytes))
      else res.destroy()
    }
    // Bodies on GET/HEAD are not passed on, but still counted so they cannot be used to flood us.
    if (!mayHaveBody(method))
      req.on('data', (chunk: Buffer) => {
        if (!counter.add(chunk.length)) refuseTooLarge()
      })
    let aborted = false
    res.once('close', () => {
      if (!res.writableFinished) aborted = true
    })
    let body: Promise<string> | undefined
    const readBody = () =>
      new Promise<string>((resolve, reject) => {
        if (!mayHaveBody(method)) return resolve('')
        const chunks: Buffer[] = []
        req.on('data', (chunk: Buffer) => {
          if (tooLarge) return
          if (counter.add(chunk.length)) return void chunks.push(chunk)
          refuseTooLarge()
          reject(new BridgeError(BridgeErrorCode.payloadTooLarge, 'request body too large'))
        })
        req.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
        req.once('error', reject)
        req.once('close', () => {
          if (!req.complete) reject(new BridgeError(BridgeErrorCode.badRequest, 'request aborted'))
        })
      })
    const request: HttpRequest = {
      method,
      target: req.url ?? '/',
      header: headerReader(req),
      remoteAddress: req.socket.remoteAddress ?? '',
      text: () => (body ??= readBody()),
      get aborted() {
        return aborted
      },
    }
    return options.handler(request).then((reply) => {
      if (tooLarge || res.destroyed) return
      writeReply(res, reply)
    })
  }

  async function serveUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    socket.on('error', () => socket.destroy())
    const decision = await options.upgrade({
      method: 'GET',
      target: req.url ?? '/',
      header: headerReader(req),
      remoteAddress: req.socket.remoteAddress ?? '',
      text: () => Promise.resolve(''),
      get aborted() {
        return socket.destroyed
      },
    })
    if (socket.destroyed) return
    if (!decision.accept) return refuseUpgrade(socket, decision.response)
    selectedProtocol.set(req, decision.protocol)
    wss.handleUpgrade(req, socket, head, (ws) =>
      guarded('open', () => decision.onOpen(wrapSocket(ws, req.socket.remoteAddress ?? ''))),
    )
  }

  const heartbeat = setInterval(() => {
    for (const ws of wss.clients) {
      const state = ws as WebSocket & { bridgeAlive?: boolean }
      if (state.bridgeAlive === false) {
        ws.terminate()
        continue
      }
      state.bridgeAlive = false
      ws.ping()
    }
  }, KEEPALIVE_INTERVAL_MS)
  heartbeat.unref()

  return {
    name: 'node',
    start: (address) =>
      new Promise((resolve, reject) => {
        const onError = (error: NodeJS.ErrnoException) => {
          reject(
            error.code === 'EADDRINUSE'
              ? new BridgeError(
                  BridgeErrorCode.portInUse,
                  `port ${address.port} on ${address.host} is already in use (is bridge already running? choose another with --port)`,
                )
              : error,
          )
        }
        server.once('error', onError)
        server.listen(address.port, address.host, () => {
          server.off('error', onError)
          server.on('error', (error) => logger.error('server error:', error))
          const bound = server.address()
          port = typeof bound === 'object' && bound ? bound.port : address.port
          resolve({ port })
        })
      }),
    stop: () =>
      new Promise((resolve) => {
        clearInterval(heartbeat)
        for (const ws of wss.clients) ws.close(1001, 'server shutting down')
        server.close(() => resolve())
        server.closeAllConnections()
        setTimeout(() => {
          for (const ws of wss.clients) ws.terminate()
        }, 1000).unref()
      }),
  }
}

/** A listener that throws must not become an uncaught exception that ends the daemon. */
function guarded(what: string, fn: () => void): void {
  try {
    fn()
  } catch (error) {
    logger.error(`websocket ${what} handler failed:`, error)
  }
}

/**
 * A request's headers by lower-case name, read from `rawHeaders` on the first lookup (node folds a
 * second Host away in `headers`); lines of one header are joined, so a duplicate Host never passes the gate.
 */
function headerReader(req: IncomingMessage): (name: string) => string | null {
  let byName: Map<string, string> | undefined
  return (name) => {
    if (!byName) {
      byName = new Map()
      const raw = req.rawHeaders
      for (let i = 0; i + 1 < raw.length; i += 2) {
        const key = raw[i]!.toLowerCase()
        const earlier = byName.get(key)
        byName.set(key, earlier === undefined ? raw[i + 1]! : `${earlier}, ${raw[i + 1]!}`)
      }
    }
    return byName.get(name) ?? null
  }
}

function writeReply(res: ServerResponse, reply: HttpReply): void {
  const { body } = reply
  if (body === undefined || typeof body === 'string') {
    const text = body ?? ''
    // The last thing this turn of the event loop does: see `writeLast`.
    writeLast(() => {
      if (res.destroyed) return
      res.writeHead(reply.status, { ...reply.headers, 'content-length': Buffer.byteLength(text) })
      res.end(text)
    })
    return
  }
  // An event stream: whatever is written in one turn (the head, the first events, the end) leaves in
  // one write, the response staying corked until the promise jobs now pending have run. Its events are
  // written as they come; past EVENT_STREAM_MAX_BUFFERED_BYTES unread the client is cut off.
  let corked = false
  const cork = () => {
    if (corked) return
    corked = true
    res.cork()
    process.nextTick(() => {
      corked = false
      if (!res.writableEnded && !res.destroyed) res.uncork()
    })
  }
  cork()
  res.writeHead(reply.status, reply.headers)
  res.flushHeaders()
  body.open({
    write(text) {
      if (res.writableEnded || res.destroyed) return
      cork()
      res.write(text)
      if (res.writableLength > EVENT_STREAM_MAX_BUFFERED_BYTES) {
        logger.warn(
          `closing an event stream its client is not reading (${megabytes(res.writableLength)} MB unread)`,
        )
        res.destroy()
      }
    },
    end() {
      if (!res.writableEnded && !res.destroyed) res.end()
    },
    onClose(listener) {
      if (res.closed) return listener()
      res.once('close', listener)
    },
  })
}

const megabytes = (bytes: number) => Math.round(bytes / 1024 / 1024)

const lastWrites: (() => void)[] = []
/**
 * Runs `write` in `setImmediate`, after the rest of this turn's work (the call's actor stopping, the
 * promise jobs that follow an answer). The write wakes the client; on a busy machine the woken client
 * may take the CPU from the daemon right inside the write, and whatever the daemon still had to do
 * then waits for its next time slice, as does the client's next request. Written last, the daemon
 * has nothing left to do and sleeps until that request arrives.
 */
function writeLast(write: () => void): void {
  if (lastWrites.push(write) === 1)
    setImmediate(() => {
      for (let i = 0; i < lastWrites.length; i++) lastWrites[i]!()
      lastWrites.length = 0
    })
}

function refuseUpgrade(socket: Duplex, reply: HttpReply): void {
  const body = Buffer.from(typeof reply.body === 'string' ? reply.body : '')
  const lines = [`HTTP/1.1 ${reply.status} ${STATUS_CODES[reply.status] ?? ''}`]
  for (const [key, value] of Object.entries(reply.headers)) lines.push(`${key}: ${value}`)
  lines.push(`content-length: ${body.length}`, 'connection: close', '', '')
  socket.end(Buffer.concat([Buffer.from(lines.join('\r\n')), body]))
}

function wrapSocket(ws: WebSocket, remoteAddress: string): EngineSocket {
  // Frames sent in the same turn (a call's tool.invocationStart and tool.dispatch) leave in one write:
  // the TCP socket under \`ws\` stays corked until the promise jobs now pending have run.
  const tcp = (ws as WebSocket & { _socket?: Duplex })._socket
  let corked = false
  const uncork = () => {
    corked = false
    tcp?.uncork()
  }
  let onMessage: (text: string) => void = () => undefined
  let onClose: (code: number, reason: string) => void = () => undefined
  const state = ws as WebSocket & { bridgeAlive?: boolean }
  state.bridgeAlive = true
  ws.on('pong', () => (state.bridgeAlive = true))
  ws.on('message', (data, isBinary) => {
    state.bridgeAlive = true
    if (isBinary) return ws.close(1003, 'text frames only')
    const text = Buffer.isBuffer(data)
      ? data.toString('utf8')
      : Buffer.concat(data as Buffer[]).toString('utf8')
    guarded('message', () => onMessage(text))
  })
  ws.on('close', (code, reason) => guarded('close', () => onClose(code, reason.toString('utf8'))))
  ws.on('error', (error) => logger.debug('websocket error:', error.message))
  return {
    remoteAddress,
    get bufferedAmount() {
      return ws.bufferedAmount
    },
    send(text) {
      if (ws.readyState !== ws.OPEN) return
      if (tcp && !corked) {
        corked = true
        tcp.cork()
        process.nextTick(uncork)
      }
      ws.send(text)
      // A peer that stopped reading: its frames would pile up here without end. Cut it off instead.
      if (ws.bufferedAmount > PEER_MAX_BUFFERED_BYTES) {
        logger.warn(
          `closing a WebSocket peer that is not reading (${megabytes(ws.bufferedAmount)} MB unread)`,
        )
        ws.terminate()
      }
    },
    close(code, reason) {
      if (ws.readyState === ws.OPEN || ws.readyState === ws.CONNECTING) ws.close(code, reason)
    },
    onMessage(listener) {
      onMessage = listener
    },
    onClose(listener) {
      onClose = listener
    },
  }
}
