/**
 * The `node` engine: node:http for requests, `ws` (noServer) for upgrades. Always available.
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
  type RequestInfo,
} from './engine'
import { createBodyCounter, isSupportedMethod, mayHaveBody, requestUrl } from './requestBody'
import { errorResponse, payloadTooLargeResponse } from './responses'

const logger = log.withTag('http')
const KEEPALIVE_INTERVAL_MS = 30_000
/** How long an event stream's head may wait to leave together with its first event. */
const EVENT_STREAM_HEAD_DELAY_MS = 20

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

  async function serveRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const aborter = new AbortController()
    res.on('close', () => {
      if (!res.writableFinished) aborter.abort()
    })
    let tooLarge = false
    const counter = createBodyCounter(limits.maxBodyBytes)
    const refuseTooLarge = () => {
      if (tooLarge) return
      tooLarge = true
      aborter.abort()
      if (!res.headersSent)
        void writeResponse(res, payloadTooLargeResponse(limits.maxBodyBytes), aborter.signal)
      else res.destroy()
    }
    const method = req.method ?? 'GET'
    if (!isSupportedMethod(method)) {
      req.resume()
      return writeResponse(
        res,
        errorResponse('method_not_allowed', `${method} is not supported`, { connection: 'close' }),
        aborter.signal,
      )
    }
    let body: ReadableStream<Uint8Array> | null = null
    if (mayHaveBody(method)) {
      body = new ReadableStream<Uint8Array>({
        start(controller) {
          req.on('data', (chunk: Buffer) => {
            if (tooLarge) return
            if (!counter.add(chunk.length)) {
              refuseTooLarge()
              controller.error(new BridgeError(BridgeErrorCode.payloadTooLarge, 'request body too large'))
              return
            }
            controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.length))
            if ((controller.desiredSize ?? 1) <= 0) req.pause()
          })
          req.on('end', () => {
            if (!tooLarge) controller.close()
          })
          req.on('error', (error) => {
            if (!tooLarge) controller.error(error)
          })
        },
        pull() {
          req.resume()
        },
        cancel() {
          req.resume()
        },
      })
    } else {
      // Bodies on GET/HEAD are not passed on, but still counted so they cannot be used to flood us.
      req.on('data', (chunk: Buffer) => {
        if (!counter.add(chunk.length)) refuseTooLarge()
      })
    }
    const request = new Request(requestUrl(port, req.url ?? '/'), {
      method,
      headers: headersOf(req),
      body,
      signal: aborter.signal,
      // @ts-expect-error Node's fetch needs `duplex` for streamed request bodies; the DOM types lack it.
      duplex: 'half',
    })
    const response = await options.handler(request, infoOf(req))
    if (tooLarge || res.destroyed) {
      await response.body?.cancel().catch(() => undefined)
      return
    }
    await writeResponse(res, response, aborter.signal)
  }

  async function serveUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    socket.on('error', () => socket.destroy())
    const request = new Request(requestUrl(port, req.url ?? '/'), { method: 'GET', headers: headersOf(req) })
    const decision = await options.upgrade(request, infoOf(req))
    if (socket.destroyed) return
    if (!decision.accept) {
      await refuseUpgrade(socket, decision.response)
      return
    }
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

function headersOf(req: IncomingMessage): Headers {
  const headers = new Headers()
  // rawHeaders keeps duplicates (node folds a second Host away); the gate must see them.
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2)
    headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!)
  return headers
}

function infoOf(req: IncomingMessage): RequestInfo {
  return { remoteAddress: req.socket.remoteAddress ?? '' }
}

async function writeResponse(res: ServerResponse, response: Response, signal: AbortSignal): Promise<void> {
  const headers: Record<string, string | string[]> = {}
  response.headers.forEach((value, key) => {
    if (key !== 'set-cookie') headers[key] = value
  })
  const cookies = response.headers.getSetCookie()
  if (cookies.length) headers['set-cookie'] = cookies
  res.writeHead(response.status, headers)
  if (!response.body) {
    res.end()
    return
  }
  // Whatever is ready together (the head, body chunks already queued, the end) leaves in one write:
  // the response stays corked until the promise jobs now pending have run, which is when a burst of
  // ready chunks has been read. An event stream's head waits for its first event for a moment (an MCP
  // answer usually follows within a millisecond), so head, event and end can share one write.
  let headHeld: ReturnType<typeof setTimeout> | undefined
  const releaseHead = () => {
    if (headHeld === undefined) return
    clearTimeout(headHeld)
    headHeld = undefined
    if (!res.writableEnded) res.uncork()
  }
  if (response.headers.get('content-type')?.startsWith('text/event-stream')) {
    res.cork()
    headHeld = setTimeout(releaseHead, EVENT_STREAM_HEAD_DELAY_MS)
  }
  let corked = false
  const uncork = () => {
    if (!corked) return
    corked = false
    if (!res.writableEnded) res.uncork()
  }
  const cork = () => {
    if (corked) return
    corked = true
    res.cork()
    process.nextTick(uncork)
  }
  cork()
  res.flushHeaders()
  // An event stream has no end: waiting for a client that stopped reading would leave its events
  // queued upstream without limit. They are written as they come, and past EVENT_STREAM_MAX_BUFFERED_BYTES
  // unread the client is cut off. A finite body just waits for the client.
  const eventStream = response.headers.get('content-type')?.startsWith('text/event-stream') === true
  const reader = response.body.getReader()
  const cancel = () => void reader.cancel().catch(() => undefined)
  signal.addEventListener('abort', cancel, { once: true })
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done || res.destroyed) break
      cork()
      const ok = res.write(value)
      releaseHead()
      if (ok) continue
      uncork()
      if (!eventStream) await drained(res)
      else if (res.writableLength > EVENT_STREAM_MAX_BUFFERED_BYTES) {
        logger.warn(
          `closing an event stream its client is not reading (${megabytes(res.writableLength)} MB unread)`,
        )
        res.destroy()
      }
    }
  } catch {
    // The stream failed (or was cancelled because the client left): end what we can.
  } finally {
    signal.removeEventListener('abort', cancel)
    releaseHead()
    if (res.destroyed) cancel()
    else res.end()
  }
}

const megabytes = (bytes: number) => Math.round(bytes / 1024 / 1024)

function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => (res.off('drain', done), res.off('close', done), resolve())
    res.on('drain', done)
    res.on('close', done)
  })
}

async function refuseUpgrade(socket: Duplex, response: Response): Promise<void> {
  const body = Buffer.from(await response.arrayBuffer())
  const lines = [`HTTP/1.1 ${response.status} ${STATUS_CODES[response.status] ?? ''}`]
  response.headers.forEach((value, key) => lines.push(`${key}: ${value}`))
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
