// A scripted stand-in for the daemon's /proof, /ws and /health, for the extension tests that need
// only Chromium: it proves it knows its secret as the daemon does (HMAC of the nonce), speaks
// src/protocol over a real WebSocket on 127.0.0.1, checks the subprotocol header and the extension's
// Origin the way the daemon does (401 / 403 before the upgrade), and records every frame the extension
// sends so tests can assert on them.
import { createHmac } from 'node:crypto'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { WebSocketServer, type WebSocket } from 'ws'
import { EXTENSION_ORIGIN, PROOF_CONTEXT, PROTOCOL_VERSION } from '../../../src/protocol/constants'
import type { PluginState, ToolState } from '../../../src/protocol/manifest'

export interface Frame {
  id?: number | string
  method?: string
  params?: unknown
  result?: unknown
  error?: { code: number; message: string; data?: unknown }
}

export interface TinyDaemon {
  port: number
  secret: string
  /** Frames received from the extension since start (all connections). */
  frames: Frame[]
  /** Number of accepted /ws connections so far. */
  connections(): number
  /** Upgrade attempts refused with 401 or 403. */
  refused(): number
  /** `GET /proof` requests answered so far. */
  proofs(): number
  /** Offered subprotocols of each upgrade attempt. */
  offeredProtocols: string[][]
  isConnected(): boolean
  /** Sends a notification on the current connection. */
  notify(method: string, params: unknown): void
  /** Sends a request and resolves with the extension's answer frame (result or error). */
  request(method: string, params: unknown): Promise<Frame>
  /** Resolves with the first frame (from `since`) that matches. */
  waitFor(pred: (f: Frame) => boolean, timeoutMs?: number, since?: number): Promise<Frame>
  /** Answers requests from the extension (tab.stateChanged, config.*): method -> result. */
  answers: Map<string, (params: unknown) => unknown>
  /** Sends sync.full with these plugins on every new connection. */
  plugins: PluginState[]
  browserTools: ToolState[]
  skipPermissions: boolean
  protocolVersion: number
  /** What `GET /audit` answers (with the secret): the side panel's recent activity. */
  audit: unknown[]
  /** Sends sync.full again on the current connection (as after a daemon reload). */
  resync(): void
  setSecret(secret: string): void
  /** While true, `GET /proof` answers 429 (too many requests), as a daemon whose budget is spent. */
  proofBusy: boolean
  /** Closes the current extension socket with a code. */
  drop(code?: number): void
  /** Freezes the current socket: it stays open but nothing is sent on it again (a hung daemon). */
  mute(): void
  /** Close codes of the extension sockets that ended, in order. */
  closeCodes: number[]
  /** Stops listening (the extension sees the daemon gone); `start` listens again on the same port. */
  stop(): Promise<void>
  start(): Promise<void>
  close(): Promise<void>
}

export async function startTinyDaemon(opts: {
  secret: string
  plugins?: PluginState[]
  port?: number
}): Promise<TinyDaemon> {
  let secret = opts.secret
  const frames: Frame[] = []
  const offeredProtocols: string[][] = []
  let current: WebSocket | null = null
  let muted: WebSocket | null = null
  const closeCodes: number[] = []
  let accepted = 0
  let refused = 0
  let proofs = 0
  let nextId = 1
  const pending = new Map<number, (f: Frame) => void>()
  const sockets = new Set<Socket>()
  const wss = new WebSocketServer({
    noServer: true,
    handleProtocols: (protocols) => (protocols.has('bridge') ? 'bridge' : false),
  })

  const daemon: TinyDaemon = {
    port: 0,
    get secret() {
      return secret
    },
    frames,
    offeredProtocols,
    answers: new Map<string, (params: unknown) => unknown>([['tab.stateChanged', () => ({ ok: true })]]),
    plugins: opts.plugins ?? [],
    browserTools: [],
    skipPermissions: false,
    protocolVersion: PROTOCOL_VERSION,
    proofBusy: false,
    audit: [],
    resync() {
      if (current) sendSync(current)
    },
    connections: () => accepted,
    refused: () => refused,
    proofs: () => proofs,
    isConnected: () => current !== null,
    notify(method, params) {
      current?.send(JSON.stringify({ jsonrpc: '2.0', method, params }))
    },
    request(method, params) {
      const id = nextId++
      return new Promise((resolve) => {
        pending.set(id, resolve)
        current?.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }))
      })
    },
    async waitFor(pred, timeoutMs = 20_000, since = 0) {
      const deadline = Date.now() + timeoutMs
      for (;;) {
        const found = frames.slice(since).find(pred)
        if (found) return found
        if (Date.now() > deadline)
          throw new Error(
            `no matching frame within ${timeoutMs} ms; got ${frames.map((f) => f.method ?? `answer ${String(f.id)}`).join(', ')}`,
          )
        await new Promise((r) => setTimeout(r, 25))
      }
    },
    setSecret(s) {
      secret = s
    },
    drop(code = 1001) {
      current?.close(code, 'test')
    },
    mute() {
      muted = current
    },
    closeCodes,
    stop: async () => {
      for (const c of wss.clients) c.terminate()
      current = null
      await new Promise<void>((resolve) => {
        server.close(() => resolve())
        for (const s of sockets) s.destroy()
      })
    },
    start: () => listen(daemon.port),
    close: async () => {
      await daemon.stop().catch(() => undefined)
      wss.close()
    },
  }

  const sendSync = (ws: WebSocket): void =>
    ws.send(
      JSON.stringify({
        jsonrpc: '2.0',
        method: 'sync.full',
        params: {
          protocolVersion: daemon.protocolVersion,
          serverVersion: '9.9.9-test',
          skipPermissions: daemon.skipPermissions,
          plugins: daemon.plugins,
          browserTools: daemon.browserTools,
        },
      }),
    )

  const authorized = (req: IncomingMessage): boolean => {
    const offered = String(req.headers['sec-websocket-protocol'] ?? '')
      .split(',')
      .map((s) => s.trim())
    offeredProtocols.push(offered)
    return offered[0] === 'bridge' && offered[1] === secret
  }

  let server: Server = createServer()
  const setup = (s: Server): void => {
    s.on('connection', (sock) => {
      sockets.add(sock)
      sock.on('close', () => sockets.delete(sock))
    })
    s.on('request', (req, res) => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1')
      if (url.pathname === '/proof') {
        proofs++
        if (daemon.proofBusy) {
          res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '60' })
          res.end('{"error":{"code":"rate_limited","message":"too many requests; try again in a minute"}}')
          return
        }
        const nonce = url.searchParams.get('nonce') ?? ''
        const proof = createHmac('sha256', secret).update(`${PROOF_CONTEXT}${nonce}`).digest('hex')
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ proof }))
        return
      }
      if (url.pathname === '/audit') {
        const ok = req.headers.authorization === `Bearer ${secret}`
        res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' })
        res.end(JSON.stringify(ok ? daemon.audit : { error: { code: 'unauthorized', message: 'bad token' } }))
        return
      }
      if (req.url === '/health') {
        const ok = req.headers.authorization === `Bearer ${secret}`
        res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' })
        res.end(
          JSON.stringify(
            ok
              ? { status: 'ok', extensionConnected: current !== null }
              : { error: { code: 'unauthorized', message: 'bad token' } },
          ),
        )
        return
      }
      res.writeHead(404).end()
    })
    s.on('upgrade', (req, socket, head) => {
      if (req.url !== '/ws' || !authorized(req)) {
        refused++
        socket.end('HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\nConnection: close\r\n\r\n')
        return
      }
      if (req.headers.origin !== EXTENSION_ORIGIN) {
        refused++
        socket.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n')
        return
      }
      wss.handleUpgrade(req, socket, head, (ws) => {
        current?.close(4000, 'replaced')
        current = ws
        accepted++
        ws.on('message', (data: Buffer) => {
          const frame = JSON.parse(data.toString()) as Frame
          frames.push(frame)
          if (ws === muted) return
          if (frame.method === 'ping')
            ws.send(JSON.stringify({ jsonrpc: '2.0', method: 'pong', params: { ts: Date.now() } }))
          if (frame.id !== undefined && frame.method === undefined) {
            pending.get(Number(frame.id))?.(frame)
            pending.delete(Number(frame.id))
          } else if (frame.id !== undefined && frame.method !== undefined) {
            const answer = daemon.answers.get(frame.method)
            // An answer that throws is the daemon refusing: a JSON-RPC error with its message.
            let reply: unknown
            try {
              reply = answer
                ? { jsonrpc: '2.0', id: frame.id, result: answer(frame.params) }
                : { jsonrpc: '2.0', id: frame.id, error: { code: -32601, message: 'not in this test' } }
            } catch (error) {
              reply = {
                jsonrpc: '2.0',
                id: frame.id,
                error: { code: -32000, message: String((error as Error).message) },
              }
            }
            ws.send(JSON.stringify(reply))
          }
        })
        ws.on('close', (code) => {
          closeCodes.push(code)
          if (current === ws) current = null
        })
        sendSync(ws)
      })
    })
  }

  const listen = (port: number): Promise<void> => {
    server = createServer()
    setup(server)
    return new Promise((resolve, reject) => {
      server.once('error', reject)
      server.listen(port, '127.0.0.1', () => {
        daemon.port = (server.address() as AddressInfo).port
        resolve()
      })
    })
  }
  await listen(opts.port ?? 0)
  return daemon
}
