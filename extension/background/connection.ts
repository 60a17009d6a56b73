/**
 * The socket to the daemon: connects to `ws://127.0.0.1:<port>/ws` offering the subprotocols
 * `bridge, <secret>`, reconnects with backoff 1, 2, 4 ... 30 s (reset after a successful connection),
 * keeps the link (and the MV3 worker) alive with pings, and tells the user why it is down. Before every
 * attempt the server on the port must prove it knows the secret (daemonProof.ts), so a program
 * squatting on the port while the daemon is down never receives it. A browser WebSocket cannot see the
 * HTTP status of a refused upgrade, so after a failed attempt it asks for the proof again: no answer
 * means the daemon is not running, a wrong proof means the server does not hold this secret.
 */
import { BRIDGE_VERSION, WS_SUBPROTOCOL } from '../../src/protocol/constants'
import { versionNotice } from './versionNotices'
import type { ConnectionStatus, ConnectionView } from '../shared/panelTypes'
import { reconnectDelayMs } from '../lib/backoff'
import { proveDaemon, type ProofOutcome } from './daemonProof'
import { daemonBaseUrl, readDaemonAddress } from './localFiles'
import { RpcPeer, type RpcHandlers } from './rpc'

/**
 * The keepalive's clock, read each time a socket opens and at each ping. The shipped extension keeps
 * these values; end-to-end tests shorten them in a worker bundled for the test (test/helpers/testWorker.ts)
 * so that the silence check runs in seconds, not a minute.
 */
export const CONNECTION_TIMING = {
  /** A ping goes out this often while connected (it also keeps the MV3 worker alive). */
  pingIntervalMs: 20_000,
  /** Two missed pongs: the socket is half-dead (sleeping laptop, frozen daemon). */
  silenceLimitMs: 45_000,
}
const CLOSE_REPLACED = 4000
/** While connected, auth.json and server.json are re-read this often: a rotated secret reconnects. */
const FILES_CHECK_MS = 3_000

export interface ConnectionHooks extends RpcHandlers {
  onConnected(peer: RpcPeer): void
  onDisconnected(): void
  onStatus(view: ConnectionView): void
}

export class DaemonConnection {
  private ws: WebSocket | null = null
  private peer: RpcPeer | null = null
  private attempt = 0
  private retryTimer: ReturnType<typeof setTimeout> | null = null
  private pingTimer: ReturnType<typeof setInterval> | null = null
  private filesTimer: ReturnType<typeof setInterval> | null = null
  /** While waiting to retry: auth.json and server.json re-read, so a new port or secret is tried at once. */
  private waitFilesTimer: ReturnType<typeof setInterval> | null = null
  /** What the last attempt read from the extension's folder. */
  private tried: { port: number; secret: string | null } | null = null
  private lastInboundAt = 0
  private connecting = false
  /** Set when another browser replaced us or versions differ: no automatic retry until asked. */
  private parked = false
  private view: ConnectionView = {
    status: 'connecting',
    message: 'Connecting to the bridge daemon…',
    port: 0,
  }

  constructor(private readonly hooks: ConnectionHooks) {}

  get current(): RpcPeer | null {
    return this.peer
  }

  get status(): ConnectionView {
    return this.view
  }

  /** Connects unless connected, connecting, waiting for a retry, or parked. Safe to call often (alarms). */
  ensure(): void {
    if (this.ws || this.connecting || this.retryTimer || this.parked) return
    void this.connect()
  }

  /** The user asked: drop any wait and connect now. */
  reconnectNow(): void {
    this.parked = false
    this.attempt = 0
    this.stopWaiting()
    if (this.ws) this.ws.close(1000, 'reconnect')
    else void this.connect()
  }

  /** Closes the socket and stays down until `reconnectNow` (protocol mismatch). */
  park(status: ConnectionStatus, message: string, fix?: ConnectionView['fix']): void {
    this.parked = true
    this.stopWaiting()
    this.setView({ status, message, port: this.view.port, ...(fix ? { fix } : {}) })
    this.ws?.close(1000, status)
  }

  /** The daemon's version from its sync.full: a version apart from this extension's is said, with its fix. */
  setServerVersion(serverVersion: string): void {
    const { versionNotice: _, ...view } = this.view
    const notice = versionNotice(serverVersion, BRIDGE_VERSION)
    this.setView({ ...view, serverVersion, ...(notice ? { versionNotice: notice } : {}) })
  }

  private async connect(): Promise<void> {
    this.connecting = true
    const { port, secret } = await readDaemonAddress()
    this.connecting = false
    this.tried = { port, secret }
    if (this.ws || this.parked) return
    if (secret === null) {
      this.retry({
        status: 'misconfigured',
        message:
          'This copy of the extension has no auth.json: in chrome://extensions, load the extension folder that `bridge start` prints in its place.',
        port,
      })
      return
    }
    this.setView({
      status: 'connecting',
      message: `Connecting to the bridge daemon on 127.0.0.1:${port}…`,
      port,
    })
    this.connecting = true
    const proof = await proveDaemon(daemonBaseUrl(port), secret)
    this.connecting = false
    if (this.ws || this.parked) return
    if (proof !== 'proven') {
      this.notProven(proof, port)
      return
    }
    let opened = false
    let ws: WebSocket
    try {
      ws = new WebSocket(`ws://127.0.0.1:${port}/ws`, [WS_SUBPROTOCOL, secret])
    } catch {
      this.retry({ status: 'unreachable', message: `Cannot open a connection to 127.0.0.1:${port}.`, port })
      return
    }
    this.ws = ws
    ws.onopen = () => {
      opened = true
      this.attempt = 0
      this.lastInboundAt = Date.now()
      const peer = new RpcPeer((text) => ws.send(text), this.hooks)
      this.peer = peer
      this.pingTimer = setInterval(() => this.keepalive(ws), CONNECTION_TIMING.pingIntervalMs)
      this.filesTimer = setInterval(() => void this.checkFiles(ws, port, secret), FILES_CHECK_MS)
      this.setView({
        status: 'connected',
        message: `Connected to the bridge daemon on 127.0.0.1:${port}.`,
        port,
      })
      this.hooks.onConnected(peer)
    }
    ws.onmessage = (ev: MessageEvent) => {
      this.lastInboundAt = Date.now()
      if (typeof ev.data === 'string') this.peer?.receive(ev.data)
    }
    ws.onclose = (ev: CloseEvent) => {
      if (this.ws !== ws) return
      this.ws = null
      if (this.pingTimer) clearInterval(this.pingTimer)
      if (this.filesTimer) clearInterval(this.filesTimer)
      this.pingTimer = null
      this.filesTimer = null
      const peer = this.peer
      this.peer = null
      peer?.close()
      if (opened) this.hooks.onDisconnected()
      if (this.parked) return
      if (ev.code === CLOSE_REPLACED) {
        this.parked = true
        this.setView({
          status: 'replaced',
          message:
            'Another browser connected to the bridge daemon and took over: click Reconnect now to use this one.',
          port,
        })
        return
      }
      if (opened) {
        this.retry({
          status: 'connecting',
          message: 'The connection to the daemon closed; reconnecting…',
          port,
        })
        return
      }
      void this.diagnose(port, secret)
    }
  }

  /** The upgrade failed: ask for the proof again (never sending the secret) to say why. */
  private async diagnose(port: number, secret: string): Promise<void> {
    const proof = await proveDaemon(daemonBaseUrl(port), secret)
    if (proof !== 'proven') {
      this.notProven(proof, port)
      return
    }
    this.retry({
      status: 'unauthorized',
      message: `The bridge daemon on 127.0.0.1:${port} proved itself but refused this extension’s connection: run \`bridge doctor\`, which says why.`,
      port,
    })
  }

  private notProven(proof: Exclude<ProofOutcome, 'proven'>, port: number): void {
    if (proof === 'busy')
      this.retry({
        status: 'connecting',
        message: `The bridge daemon on 127.0.0.1:${port} is busy (too many requests asked it to prove itself); retrying…`,
        port,
      })
    else if (proof === 'unreachable')
      this.retry({
        status: 'unreachable',
        message: `No bridge daemon answers on 127.0.0.1:${port}: start it with \`bridge start\`.`,
        port,
      })
    else
      this.retry({
        status: 'impostor',
        // The extension cannot tell these apart (it holds only its own secret); the daemon and doctor can.
        message:
          `The server on 127.0.0.1:${port} does not hold this extension’s secret (a bridge daemon of another config folder, ` +
          'one whose secret changed, or another program), so nothing was sent to it: run `bridge doctor`, which says which and what to do.',
        port,
      })
  }

  private retry(view: Omit<ConnectionView, 'retryAt'>): void {
    const delay = reconnectDelayMs(this.attempt++)
    this.setView({ ...view, retryAt: Date.now() + delay })
    this.retryTimer = setTimeout(() => {
      this.stopWaiting()
      void this.connect()
    }, delay)
    // The daemon restarted on another port, or the secret was put right: no need to sit out the backoff.
    this.waitFilesTimer = setInterval(() => void this.checkFilesWhileWaiting(), FILES_CHECK_MS)
  }

  private stopWaiting(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer)
    if (this.waitFilesTimer) clearInterval(this.waitFilesTimer)
    this.retryTimer = null
    this.waitFilesTimer = null
  }

  private async checkFilesWhileWaiting(): Promise<void> {
    const now = await readDaemonAddress()
    const tried = this.tried
    if (!this.retryTimer || this.parked || this.ws || this.connecting) return
    if (tried && now.port === tried.port && now.secret === tried.secret) return
    this.attempt = 0
    this.stopWaiting()
    void this.connect()
  }

  /** `bridge config rotate-secret` wrote a new auth.json (or start chose a new port): reconnect with it. */
  private async checkFiles(ws: WebSocket, port: number, secret: string): Promise<void> {
    const now = await readDaemonAddress()
    if (this.ws !== ws || (now.port === port && now.secret === secret) || now.secret === null) return
    this.attempt = 0
    ws.close(1000, 'connection settings changed')
  }

  private keepalive(ws: WebSocket): void {
    if (Date.now() - this.lastInboundAt > CONNECTION_TIMING.silenceLimitMs) {
      // A dead peer never completes the close handshake: treat the socket as closed right away.
      ws.close(4001, 'no pong')
      ws.onclose?.(new CloseEvent('close', { code: 4001 }))
      return
    }
    this.peer?.notify('ping', { ts: Date.now() })
  }

  private setView(view: ConnectionView): void {
    // A version notice holds only while connected to the daemon that caused it.
    if (view.status !== 'connected' && view.versionNotice) {
      const { versionNotice: _, ...rest } = view
      view = rest
    }
    this.view = view
    this.hooks.onStatus(view)
  }
}
