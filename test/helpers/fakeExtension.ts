/**
 * A scripted stand-in for the bridge extension: a real `ws` WebSocket to the daemon's /ws with the
 * `bridge, <secret>` subprotocol header and the extension's Origin, speaking src/protocol. Tests set its tab states, answer its
 * tool.dispatch requests and read every message the daemon sent.
 *
 * @example
 *   const ext = await FakeExtension.connect(daemon, { tabs: { notes: READY } })
 *   const call = await ext.nextDispatch()
 *   call.succeed({ notes: [] })
 */
import WebSocket from 'ws'
import type { PluginTabs } from '../../src/protocol'
import { EXTENSION_ORIGIN } from '../../src/protocol/constants'

export interface WireMessage {
  jsonrpc: '2.0'
  id?: string | number | null
  method?: string
  params?: Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any -- tests read whatever the daemon sent
  result?: Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any -- tests read whatever the daemon sent
  error?: { code: number; message: string; data?: unknown }
}

export interface Dispatch {
  id: string | number
  params: { dispatchId: string; plugin: string; tool: string; input: unknown }
  succeed(output: unknown): void
  /** Succeeds saying where the output was read (the data-flow labels a real extension sends). */
  succeedFrom(origins: string[], output: unknown): void
  fail(code: number, message: string, data?: unknown): void
  progress(progress: number, total?: number, message?: string): void
}

export interface FakeExtensionOptions {
  /** Tab states sent in tab.syncAll after each sync.full. */
  tabs?: Record<string, PluginTabs>
  /** Answer to every tool.dispatch at once (otherwise dispatches queue for nextDispatch). */
  autoAnswer?: (params: Dispatch['params']) => unknown
  /** Send `tab.syncAll` after `sync.full` (default true). */
  syncTabs?: boolean
  /**
   * Answers every `tab.origin` at once with the origin the tab shows (undefined: a closed or unknown
   * tab, answered with no origin, as the real extension does); otherwise those requests queue for waitFor.
   */
  tabOrigin?: (params: { tabId?: number; dispatchId?: string }) => string | undefined
}

export const READY: PluginTabs = {
  state: 'ready',
  tabs: [{ tabId: 1, url: 'http://127.0.0.1/notes', title: 'Notes', ready: true }],
}
export const UNAVAILABLE: PluginTabs = {
  state: 'unavailable',
  tabs: [{ tabId: 1, url: 'http://127.0.0.1/notes', title: 'Notes', ready: false }],
}
export const CLOSED: PluginTabs = { state: 'closed', tabs: [] }

export class FakeExtension {
  readonly received: WireMessage[] = []
  readonly dispatches: Dispatch[] = []
  /** The `tab.origin` requests answered by the `tabOrigin` option, in order. */
  readonly tabOriginsAsked: Array<{ tabId?: number; dispatchId?: string }> = []
  private waiters: { match: (m: WireMessage) => boolean; resolve: (m: WireMessage) => void }[] = []
  private nextId = 1
  private readonly pending = new Map<number, (m: WireMessage) => void>()
  readonly closed: Promise<{ code: number; reason: string }>
  /** The daemon's sync.full on connect. */
  syncFull: WireMessage | undefined

  private constructor(
    readonly ws: WebSocket,
    private readonly options: FakeExtensionOptions,
  ) {
    this.closed = new Promise((resolve) =>
      ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    )
    ws.on('message', (data: Buffer) => this.onFrame(data.toString('utf8')))
  }

  /** Opens /ws and waits for the daemon's sync.full (and sends tab.syncAll). */
  static async connect(
    daemon: { port: number; secret: string },
    options: FakeExtensionOptions = {},
  ): Promise<FakeExtension> {
    const ws = new WebSocket(`ws://127.0.0.1:${daemon.port}/ws`, ['bridge', daemon.secret], {
      headers: { origin: EXTENSION_ORIGIN },
    })
    const ext = new FakeExtension(ws, options)
    const synced = ext.waitFor('sync.full').then((m) => (ext.syncFull = m))
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve())
      ws.once('error', reject)
      ws.once('unexpected-response', (_req, res) =>
        reject(new Error(`upgrade refused with HTTP ${res.statusCode}`)),
      )
    })
    await synced
    return ext
  }

  /** The next message from the daemon with this method (already received ones count first). */
  waitFor(
    method: string,
    match: (m: WireMessage) => boolean = () => true,
    timeoutMs = 10_000,
  ): Promise<WireMessage> {
    const test = (m: WireMessage) => m.method === method && match(m)
    const seen = this.received.find(test)
    if (seen) {
      this.received.splice(this.received.indexOf(seen), 1)
      return Promise.resolve(seen)
    }
    return new Promise((resolve, reject) => {
      const waiter = { match: test, resolve }
      this.waiters.push(waiter)
      setTimeout(() => {
        if (!this.waiters.includes(waiter)) return
        this.waiters = this.waiters.filter((w) => w !== waiter)
        reject(new Error(`no ${method} from the daemon within ${timeoutMs} ms`))
      }, timeoutMs)
    })
  }

  /** The next tool.dispatch request (queued until a test takes it). */
  async nextDispatch(timeoutMs = 10_000): Promise<Dispatch> {
    const message = await this.waitFor('tool.dispatch', () => true, timeoutMs)
    return this.toDispatch(message)
  }

  notify(method: string, params: unknown): void {
    this.send({ jsonrpc: '2.0', method, params })
  }

  /** Sends a request and resolves with the whole answer (result or error). */
  request(method: string, params?: unknown): Promise<WireMessage> {
    const id = this.nextId++
    return new Promise((resolve) => {
      this.pending.set(id, resolve)
      this.send({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) })
    })
  }

  /** Sends raw text as one frame; the next frame the daemon sends back that is an answer to nothing we asked. */
  sendRaw(text: string): void {
    this.ws.send(text)
  }

  /** Answers with no id the daemon sent (error answers to malformed frames), in order. */
  orphanAnswers(): WireMessage[] {
    return this.received.filter((m) => m.method === undefined && (m.id === null || m.id === undefined))
  }

  /** Answers a request the daemon sent (tool.sinkOrigin, tab.origin, ...) with this result. */
  answer(request: WireMessage, result: unknown): void {
    this.send({ jsonrpc: '2.0', id: request.id, result })
  }

  approve(id: string, decision: 'allow_once' | 'allow_always' | 'deny'): void {
    this.notify('confirmation.response', { id, decision })
  }

  async close(): Promise<void> {
    if (this.ws.readyState === WebSocket.OPEN || this.ws.readyState === WebSocket.CONNECTING)
      this.ws.close(1000)
    await this.closed
  }

  /** Stops reading the socket (a hung extension): the daemon's frames pile up in the buffers. */
  stopReading(): void {
    ;(this.ws as WebSocket & { _socket?: { pause(): void } })._socket?.pause()
  }

  /** Drops the TCP connection without a close frame (a crashed browser). */
  terminate(): void {
    this.ws.terminate()
  }

  private send(message: unknown): void {
    this.ws.send(JSON.stringify(message))
  }

  private toDispatch(message: WireMessage): Dispatch {
    const id = message.id as string | number
    const params = message.params as Dispatch['params']
    return {
      id,
      params,
      succeed: (output) => this.send({ jsonrpc: '2.0', id, result: { output } }),
      succeedFrom: (origins, output) => this.send({ jsonrpc: '2.0', id, result: { output, origins } }),
      fail: (code, msg, data) =>
        this.send({
          jsonrpc: '2.0',
          id,
          error: { code, message: msg, ...(data === undefined ? {} : { data }) },
        }),
      progress: (progress, total, msg) =>
        this.notify('tool.progress', {
          dispatchId: params.dispatchId,
          progress,
          ...(total === undefined ? {} : { total }),
          ...(msg === undefined ? {} : { message: msg }),
        }),
    }
  }

  private onFrame(text: string): void {
    let message: WireMessage
    try {
      message = JSON.parse(text) as WireMessage
    } catch {
      return
    }
    if (message.method === undefined && typeof message.id === 'number' && this.pending.has(message.id)) {
      const resolve = this.pending.get(message.id)!
      this.pending.delete(message.id)
      resolve(message)
      return
    }
    if (message.method === 'sync.full' && this.options.syncTabs !== false)
      this.notify('tab.syncAll', { plugins: this.options.tabs ?? {} })
    if (message.method === 'tool.dispatch' && this.options.autoAnswer) {
      const dispatch = this.toDispatch(message)
      dispatch.succeed(this.options.autoAnswer(dispatch.params))
      return
    }
    if (message.method === 'tab.origin' && this.options.tabOrigin) {
      const params = (message.params ?? {}) as { tabId?: number; dispatchId?: string }
      this.tabOriginsAsked.push(params)
      const origin = this.options.tabOrigin(params)
      this.answer(message, origin === undefined ? {} : { origin })
      return
    }
    const waiter = this.waiters.find((w) => w.match(message))
    if (waiter) {
      this.waiters = this.waiters.filter((w) => w !== waiter)
      waiter.resolve(message)
      return
    }
    this.received.push(message)
  }
}
