import { randomUUID } from 'node:crypto'
import type { ActorRefFrom, AnyActorRef } from 'xstate'
import { childId, type bridgeSystemMachine } from '../../machines/bridgeSystemMachine'
import type { extensionConnectionMachine } from '../../machines/extensionConnectionMachine'
import type { pluginTabMachine } from '../../machines/pluginTabMachine'
import type { EngineSocket } from '../http/engine'
import { log } from '../log'
import {
  BROWSER_PLUGIN,
  JsonRpcErrorCode,
  type ClientNotifications,
  type ClientRequests,
  type NotificationParams,
  type RequestParams,
  type ServerNotificationName,
  type ServerNotifications,
  type TabInfo,
  type TabStateName,
} from '../protocol'
import { DAEMON_PEER_SCHEMAS } from './daemonSchemas'
import { Peer, RpcError } from './peer'

const logger = log.withTag('ws')

type ClientNote<K extends keyof typeof ClientNotifications> = NotificationParams<
  typeof ClientNotifications,
  K
>

export interface ExtensionLinkDeps {
  /** The `sync.full` payload for a new connection. */
  syncFull(): NotificationParams<typeof ServerNotifications, 'sync.full'>
  /** Requests other than tab.stateChanged (config.*, plugin.*, folder.open). Reject with RpcError. */
  handleRequest(method: string, params: unknown): Promise<unknown>
  onProgress(params: ClientNote<'tool.progress'>): void
  onConfirmation(params: ClientNote<'confirmation.response'>): void
  onPluginLog(params: ClientNote<'plugin.log'>): void
  /** The active connection went away (closed, replaced, silent): fail every in-flight call. */
  onConnectionLost(): void
  /** Keepalive timeout (ms) for a silent socket. */
  keepaliveTimeoutMs?: number
}

export interface TabSnapshot {
  state: TabStateName
  tabs: TabInfo[]
  inFlight: number
}

type BridgeSystemRef = ActorRefFrom<typeof bridgeSystemMachine>
type ConnectionEffects = Parameters<typeof extensionConnectionMachine.provide>[0]

interface OpenSocket {
  socket: EngineSocket
  peer: Peer
}

/**
 * The daemon's end of /ws: one active extension socket (the root system's extensionConnection actor
 * decides), a validating JSON-RPC peer per socket, and one `pluginTab:<plugin>` child of the root
 * system per loaded plugin, fed by the extension's tab reports. The daemon provides
 * `connectionEffects` to extensionConnection, then attaches the started system.
 */
export class ExtensionLink {
  private readonly sockets = new Map<string, OpenSocket>()
  private system: BridgeSystemRef | undefined
  private stopped = false
  /** The socket effects of the extensionConnection actor, for `.provide()`. */
  readonly connectionEffects: ConnectionEffects

  constructor(private readonly deps: ExtensionLinkDeps) {
    this.connectionEffects = {
      actions: {
        sendSyncFull: (_, { connectionId }) =>
          void this.sockets.get(connectionId)?.peer.notify('sync.full', deps.syncFull()),
        sendPong: (_, { connectionId, ts }) =>
          void this.sockets.get(connectionId)?.peer.notify('pong', { ts }),
        closeSocket: (_, { connectionId, code, reason }) => {
          const open = this.sockets.get(connectionId)
          if (!open) return
          logger.info(`closing extension connection (${reason})`)
          open.peer.close(reason)
          try {
            open.socket.close(code, reason)
          } catch (error) {
            logger.warn('closing the extension socket failed:', error)
          }
        },
        connectionLost: () => {
          for (const tab of this.tabs().values()) tab.send({ type: 'extension.lost' })
          deps.onConnectionLost()
        },
      },
      ...(deps.keepaliveTimeoutMs === undefined
        ? {}
        : { delays: { keepaliveTimeout: deps.keepaliveTimeoutMs } }),
    }
  }

  /** Takes the started root system: its extensionConnection drives the sockets; tabs are spawned there. */
  attach(system: BridgeSystemRef): void {
    this.system = system
    // Effects never throw by design; should one, log it rather than fail silently.
    this.connection()?.subscribe({
      error: (error: unknown) => logger.error('extension connection actor failed:', error),
    })
    this.ensureTab(BROWSER_PLUGIN)
  }

  /** Takes an authenticated /ws socket; it becomes the active connection. */
  open(socket: EngineSocket): void {
    const connectionId = randomUUID()
    const peer = new Peer({
      schemas: DAEMON_PEER_SCHEMAS,
      send: (text) => socket.send(text),
      onNotification: (method, params) => this.onNotification(connectionId, method, params),
      onRequest: (method, params) => this.onRequest(connectionId, method, params),
      onProblem: (message) => logger.warn(`extension sent something unusable: ${message}`),
    })
    this.sockets.set(connectionId, { socket, peer })
    socket.onMessage((text) => {
      if (this.stopped) return
      this.connection()?.send({ type: 'ws.activity', connectionId })
      peer.receive(text)
    })
    socket.onClose((code) => {
      peer.close()
      this.sockets.delete(connectionId)
      if (this.stopped) return
      logger.info(`extension connection closed (code ${code})`)
      this.connection()?.send({ type: 'ws.closed', connectionId })
    })
    logger.info('extension connected')
    this.connection()?.send({ type: 'ws.opened', connectionId })
  }

  get connected(): boolean {
    const snapshot = this.connection()?.getSnapshot()
    return snapshot !== undefined && snapshot.value !== 'noConnection'
  }

  /** Open extension sockets (the active one, plus a replaced one that is still closing). */
  get socketCount(): number {
    return this.sockets.size
  }

  /** Sends a notification on the active connection; false when there is none. */
  notify<K extends ServerNotificationName>(
    method: K,
    params: NotificationParams<typeof ServerNotifications, K>,
  ): boolean {
    return this.active()?.peer.notify(method, params) ?? false
  }

  /** Sends a request on the active connection; undefined when there is none. */
  request(method: string, params: unknown): { result: Promise<unknown>; forget: () => void } | undefined {
    const open = this.active()
    if (!open) return undefined
    const { id, result } = open.peer.request(method, params)
    return { result, forget: () => open.peer.forget(id) }
  }

  /** Keeps one pluginTab actor per loaded plugin (plus `browser`, which only counts calls). */
  syncPlugins(names: readonly string[]): void {
    for (const name of names) this.ensureTab(name)
    for (const name of this.tabs().keys())
      if (name !== BROWSER_PLUGIN && !names.includes(name))
        this.system?.send({ type: 'pluginTab.stop', plugin: name })
  }

  tab(plugin: string): TabSnapshot | undefined {
    const snapshot = this.tabs().get(plugin)?.getSnapshot()
    if (!snapshot) return undefined
    return { state: snapshot.value, tabs: snapshot.context.tabs, inFlight: snapshot.context.inFlight }
  }

  /** Takes one of the plugin's 5 in-flight slots; false when all are taken. */
  acquireSlot(plugin: string): boolean {
    const tab = this.tabs().get(plugin)
    if (!tab) return false
    const before = tab.getSnapshot().context.inFlight
    tab.send({ type: 'slot.acquire' })
    return tab.getSnapshot().context.inFlight > before
  }

  releaseSlot(plugin: string): void {
    this.tabs().get(plugin)?.send({ type: 'slot.release' })
  }

  /**
   * The secret changed: every open socket was authenticated with the old one, so close them (4002
   * "secret rotated"). The extension re-reads auth.json and reconnects with the new secret.
   */
  secretRotated(): void {
    for (const { peer, socket } of this.sockets.values()) {
      peer.close('secret rotated')
      socket.close(4002, 'secret rotated')
    }
  }

  stop(): void {
    this.stopped = true
    for (const { peer, socket } of this.sockets.values()) {
      peer.close('daemon stopping')
      socket.close(1001, 'daemon stopping')
    }
    // The connection actor and the pluginTab children stop with the root system.
  }

  private connection(): ActorRefFrom<typeof extensionConnectionMachine> | undefined {
    return this.system?.system.get('extensionConnection') as
      ActorRefFrom<typeof extensionConnectionMachine> | undefined
  }

  /** The root system's pluginTab children by plugin name. */
  private tabs(): Map<string, ActorRefFrom<typeof pluginTabMachine>> {
    const tabs = new Map<string, ActorRefFrom<typeof pluginTabMachine>>()
    const children = (this.system?.getSnapshot().children ?? {}) as Record<string, AnyActorRef | undefined>
    for (const [id, ref] of Object.entries(children))
      if (ref && id.startsWith('pluginTab:'))
        tabs.set(id.slice('pluginTab:'.length), ref as ActorRefFrom<typeof pluginTabMachine>)
    return tabs
  }

  private ensureTab(name: string): void {
    if (!this.system || this.tabs().has(name)) return
    this.system.send({ type: 'pluginTab.spawn', plugin: name })
    const tab = this.tabs().get(name)
    tab?.subscribe({
      error: (error: unknown) => logger.error(`${childId('pluginTab', name)} failed:`, error),
    })
  }

  private active(): OpenSocket | undefined {
    const id = this.connection()?.getSnapshot().context.connectionId
    return id === undefined ? undefined : this.sockets.get(id)
  }

  private isActive(connectionId: string): boolean {
    return this.connection()?.getSnapshot().context.connectionId === connectionId
  }

  private onNotification(connectionId: string, method: string, params: unknown): void {
    if (!this.isActive(connectionId)) return
    switch (method) {
      case 'ping':
        this.connection()?.send({ type: 'ws.ping', connectionId, ts: (params as ClientNote<'ping'>).ts })
        return
      case 'tab.syncAll': {
        const { plugins } = params as ClientNote<'tab.syncAll'>
        for (const [name, tab] of this.tabs()) {
          if (name === BROWSER_PLUGIN) continue
          const reported = Object.hasOwn(plugins, name) ? plugins[name] : undefined
          tab.send({ type: 'tabs.update', state: reported?.state ?? 'closed', tabs: reported?.tabs ?? [] })
        }
        return
      }
      case 'tool.progress':
        return this.deps.onProgress(params as ClientNote<'tool.progress'>)
      case 'confirmation.response':
        return this.deps.onConfirmation(params as ClientNote<'confirmation.response'>)
      case 'plugin.log':
        return this.deps.onPluginLog(params as ClientNote<'plugin.log'>)
    }
  }

  private onRequest(connectionId: string, method: string, params: unknown): Promise<unknown> {
    if (!this.isActive(connectionId))
      return Promise.reject(new RpcError(JsonRpcErrorCode.invalidRequest, 'this connection was replaced'))
    if (method === 'tab.stateChanged') {
      const { plugin, state, tabs } = params as RequestParams<typeof ClientRequests, 'tab.stateChanged'>
      const tab = plugin === BROWSER_PLUGIN ? undefined : this.tabs().get(plugin)
      if (!tab) return Promise.resolve({ ok: false })
      tab.send({ type: 'tabs.update', state, tabs })
      return Promise.resolve({ ok: true })
    }
    return this.deps.handleRequest(method, params)
  }
}
