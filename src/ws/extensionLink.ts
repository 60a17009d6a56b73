/**
 * The daemon's end of /ws: the extension port. One active extension socket (the root system's
 * extensionConnection actor decides which), a validating JSON-RPC peer per socket, and the routing of
 * what the extension says to the actors it concerns, found by systemId: tab reports to
 * `pluginTab:<plugin>`, progress and approval decisions to `toolInvocation:<id>`. Requests go to the
 * one method table (src/ws/methods.ts).
 */
import { randomUUID } from 'node:crypto'
import type { ActorRefFrom, AnyActorRef } from 'xstate'
import { systemIdOf, type bridgeSystemMachine } from '../../machines/bridgeSystemMachine'
import type { extensionConnectionMachine } from '../../machines/extensionConnectionMachine'
import type { pluginTabMachine } from '../../machines/pluginTabMachine'
import type { EngineSocket } from '../http/engine'
import { log } from '../log'
import {
  BROWSER_PLUGIN,
  type NotificationParams,
  type RequestParams,
  type RequestResult,
  type ServerNotificationName,
  type ServerNotifications,
  type ServerRequestName,
  type ServerRequests,
  type TabInfo,
  type TabStateName,
} from '../protocol'
import { createDaemonPeer, type ClientNote, type DaemonPeer, type InboundNote } from './daemonPeer'
import type { MethodHandlers } from './methodHandler'

const logger = log.withTag('ws')

/** What a tool call needs of the extension: is it there, tell it something, ask it something. */
export interface ExtensionPort {
  readonly connected: boolean
  /**
   * Sends a notification on the active connection; false when there is none. With `soon`, it may wait
   * a few milliseconds for the next frame to leave with it (see Peer.notifySoon).
   */
  notify<K extends ServerNotificationName>(
    method: K,
    params: NotificationParams<typeof ServerNotifications, K>,
    options?: { soon?: boolean },
  ): boolean
  /** Sends a request on the active connection; undefined when there is none. `forget` drops a late answer. */
  request<K extends ServerRequestName>(
    method: K,
    params: RequestParams<typeof ServerRequests, K>,
  ): { result: Promise<RequestResult<typeof ServerRequests, K>>; forget: () => void } | undefined
}

export interface ExtensionLinkDeps {
  /** The `sync.full` payload for a new connection. */
  syncFull(): NotificationParams<typeof ServerNotifications, 'sync.full'>
  /** Every request the extension may send, one handler each. */
  methods: MethodHandlers
  onPluginLog(params: ClientNote<'plugin.log'>): void
  /** `sites.report`: the tools pages of turned-on sites declare now (WebMCP). */
  onSitesReport?(params: ClientNote<'sites.report'>): void
  /** The extension is gone: what it reported of open tabs no longer holds. */
  onLost?(): void
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
type PluginTabRef = ActorRefFrom<typeof pluginTabMachine>

interface OpenSocket {
  socket: EngineSocket
  peer: DaemonPeer
}

export class ExtensionLink implements ExtensionPort {
  private readonly sockets = new Map<string, OpenSocket>()
  /** Plugins that have a pluginTab actor (spawned through the root on `syncPlugins`). */
  private readonly tabPlugins = new Set<string>()
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
        // The root tells every plugin tab and every call.
        connectionLost: () => {
          this.system?.send({ type: 'extension.lost' })
          deps.onLost?.()
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
    const peer = createDaemonPeer({
      send: (text) => socket.send(text),
      isActive: () => this.isActive(connectionId),
      methods: this.deps.methods,
      onNotification: (note) => this.onNotification(connectionId, note),
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

  notify<K extends ServerNotificationName>(
    method: K,
    params: NotificationParams<typeof ServerNotifications, K>,
    options: { soon?: boolean } = {},
  ): boolean {
    const peer = this.active()?.peer
    if (!peer) return false
    return options.soon ? peer.notifySoon(method, params) : peer.notify(method, params)
  }

  request<K extends ServerRequestName>(
    method: K,
    params: RequestParams<typeof ServerRequests, K>,
  ): { result: Promise<RequestResult<typeof ServerRequests, K>>; forget: () => void } | undefined {
    const open = this.active()
    if (!open) return undefined
    const { id, result } = open.peer.request(method, params)
    return {
      result: result as Promise<RequestResult<typeof ServerRequests, K>>,
      forget: () => open.peer.forget(id),
    }
  }

  /** Keeps one pluginTab actor per loaded plugin (plus `browser`, which only counts calls). */
  syncPlugins(names: readonly string[]): void {
    const wanted = new Set(names)
    for (const name of names) this.ensureTab(name)
    for (const name of [...this.tabPlugins])
      if (name !== BROWSER_PLUGIN && !wanted.has(name)) {
        this.tabPlugins.delete(name)
        this.system?.send({ type: 'pluginTab.stop', plugin: name })
      }
  }

  tab(plugin: string): TabSnapshot | undefined {
    const snapshot = this.tabActor(plugin)?.getSnapshot()
    if (!snapshot) return undefined
    return { state: snapshot.value, tabs: snapshot.context.tabs, inFlight: snapshot.context.inFlight }
  }

  /** The plugin's tab state as one line of /health: `{ tabState, tabs }`. */
  tabState(plugin: string): { tabState: TabStateName; tabs: TabInfo[] } {
    const tab = this.tab(plugin)
    return { tabState: tab?.state ?? 'closed', tabs: tab?.tabs ?? [] }
  }

  /** `tab.stateChanged`: one plugin's tabs changed; false for a plugin with no tab actor. */
  tabStateChanged(plugin: string, state: TabStateName, tabs: TabInfo[]): boolean {
    const tab = plugin === BROWSER_PLUGIN ? undefined : this.tabActor(plugin)
    tab?.send({ type: 'tabs.update', state, tabs })
    return tab !== undefined
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

  private tabActor(plugin: string): PluginTabRef | undefined {
    return this.system?.system.get(systemIdOf('pluginTab', plugin)) as PluginTabRef | undefined
  }

  private ensureTab(name: string): void {
    if (!this.system || this.tabPlugins.has(name)) return
    this.tabPlugins.add(name)
    this.system.send({ type: 'pluginTab.spawn', plugin: name })
    this.tabActor(name)?.subscribe({
      error: (error: unknown) => logger.error(`${systemIdOf('pluginTab', name)} failed:`, error),
    })
  }

  private active(): OpenSocket | undefined {
    const id = this.connection()?.getSnapshot().context.connectionId
    return id === undefined ? undefined : this.sockets.get(id)
  }

  private isActive(connectionId: string): boolean {
    return this.connection()?.getSnapshot().context.connectionId === connectionId
  }

  /** A call's actor by its systemId; the id comes from the extension, so it may name nothing. */
  private invocation(dispatchId: string): AnyActorRef | undefined {
    return this.system?.system.get(systemIdOf('toolInvocation', dispatchId)) as AnyActorRef | undefined
  }

  private onNotification(connectionId: string, note: InboundNote): void {
    if (!this.isActive(connectionId)) return
    switch (note.method) {
      case 'ping':
        this.connection()?.send({ type: 'ws.ping', connectionId, ts: note.params.ts })
        return
      case 'tab.syncAll': {
        const { plugins } = note.params
        for (const name of this.tabPlugins) {
          if (name === BROWSER_PLUGIN) continue
          const reported = Object.hasOwn(plugins, name) ? plugins[name] : undefined
          this.tabActor(name)?.send({
            type: 'tabs.update',
            state: reported?.state ?? 'closed',
            tabs: reported?.tabs ?? [],
          })
        }
        return
      }
      case 'tool.progress': {
        const { dispatchId, progress, total, message } = note.params
        this.invocation(dispatchId)?.send({
          type: 'tool.progress',
          progress,
          ...(total === undefined ? {} : { total }),
          ...(message === undefined ? {} : { message }),
        })
        return
      }
      case 'confirmation.response':
        this.invocation(note.params.id)?.send({
          type: 'confirmation.response',
          decision: note.params.decision,
        })
        return
      case 'plugin.log':
        this.deps.onPluginLog(note.params)
        return
      case 'sites.report':
        this.deps.onSitesReport?.(note.params)
        return
    }
  }
}
