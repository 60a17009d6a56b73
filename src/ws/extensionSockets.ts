/**
 * The daemon's end of /ws, in three parts:
 * - The daemon's JSON-RPC peer on one socket (`createDaemonPeer`): the shared peer (src/rpc/peer.ts)
 *   with the daemon's validation (compiled schemas), what the extension may send (role `extension`
 *   in src/protocol), the method table for its requests, and BridgeError messages passed on with
 *   their code.
 * - The open sockets (`ExtensionSockets`) and what the actors do with them: the
 *   `extensionConnection` actor's effects (send `sync.full` and `pong`, close a socket) and the port
 *   a call uses to reach the active extension. Which socket is active is the actor's to decide: the
 *   port reads it from the `system` XState hands the effect, so this table is built before the actor
 *   system and never attached to it.
 * - The link (`ExtensionLink`): routes what the extension says to the actors it concerns, found
 *   through the typed lookups of machines/systemActors.ts: socket life to `extensionConnection`
 *   (which decides the one active socket), tab reports to `pluginTab:<plugin>`, progress and approval
 *   decisions to `toolInvocation:<id>`. Requests go to the one method table (src/ws/methods.ts).
 *   Built once the actor system runs, with that system.
 */
import { randomUUID } from 'node:crypto'
import type { ActorRefFrom } from 'xstate'
import type { bridgeSystemMachine } from '../../machines/bridgeSystemMachine'
import type { extensionConnectionMachine } from '../../machines/extensionConnectionMachine'
import {
  extensionConnectionOf,
  pluginTabOf,
  systemIdOf,
  toolInvocationOf,
  type SystemLookup,
} from '../../machines/systemActors'
import type { ExtensionPort } from '../calls/extensionPort'
import { isBridgeError } from '../errors'
import type { EngineSocket } from '../http/engine'
import { log } from '../log'
import {
  BROWSER_PLUGIN,
  ClientNotifications,
  ClientRequests,
  JsonRpcErrorCode,
  ServerRequests,
  type ClientNotificationName,
  type ClientRequestName,
  type NotificationParams,
  type ServerNotifications,
  type TabInfo,
  type TabStateName,
} from '../protocol'
import { Peer, RpcError, type PeerOptions, type PeerSchemas } from '../rpc/peer'
import { validate } from '../validation'
import { callMethod, type MethodHandlers } from './methodHandler'

const logger = log.withTag('ws')

/** The port a call reaches the extension through, declared where it is used (src/calls). */
export type { ExtensionPort } from '../calls/extensionPort'

/** The daemon's end: it sends the requests and notifications of role `daemon` in src/protocol, typed. */
export type DaemonPeer = Peer<typeof ServerRequests, typeof ServerNotifications>

/** What the daemon's end of /ws accepts from the extension and expects back from it. */
export const DAEMON_PEER_SCHEMAS: PeerSchemas<typeof ServerRequests> = {
  notifications: ClientNotifications,
  requests: ClientRequests,
  outbound: ServerRequests,
}

/** How the daemon's end checks and answers, whatever the socket: its schemas, its validation, its errors. */
export const DAEMON_PEER_POLICY: Pick<
  PeerOptions<typeof ServerRequests>,
  'schemas' | 'check' | 'errorFor'
> = {
  schemas: DAEMON_PEER_SCHEMAS,
  check: (schema, value, label) => {
    const result = validate(schema, value, label)
    return result.ok ? { ok: true } : result
  },
  // A BridgeError's message is written for the user and never holds a secret: pass it on, with
  // its code for the panel to act on (e.g. config_locked).
  errorFor: (error) =>
    isBridgeError(error)
      ? new RpcError(JsonRpcErrorCode.internalError, error.message, { code: error.code })
      : undefined,
}

export interface DaemonPeerOptions {
  send(text: string): void
  /** False once another socket replaced this one: its requests are refused. */
  isActive(): boolean
  methods: MethodHandlers
  /** Every notification the extension may send, one handler each. */
  notes: NoteHandlers
  onProblem(message: string): void
}

export function createDaemonPeer(options: DaemonPeerOptions): DaemonPeer {
  return new Peer({
    ...DAEMON_PEER_POLICY,
    send: (text) => options.send(text),
    onNotification: (method, params) => {
      if (options.isActive()) runNote(options.notes, method as ClientNotificationName, params)
    },
    onRequest: (method, params) =>
      options.isActive()
        ? callMethod(options.methods, method as ClientRequestName, params)
        : Promise.reject(new RpcError(JsonRpcErrorCode.invalidRequest, 'this connection was replaced')),
    onProblem: (message) => options.onProblem(message),
  })
}

export type ClientNote<K extends keyof typeof ClientNotifications> = NotificationParams<
  typeof ClientNotifications,
  K
>

/**
 * The daemon's handling of what the extension tells it: one handler per notification of role
 * `extension` in src/protocol, typed by its params. A notification added to the protocol without a
 * handler here is a type error where the table is built (`ExtensionLink`, below).
 */
export type NoteHandlers = { [K in ClientNotificationName]: (params: ClientNote<K>) => void }

/** Runs the handler of a notification whose method and params the peer has already checked. */
function runNote(handlers: NoteHandlers, method: ClientNotificationName, params: unknown): void {
  ;(handlers[method] as (params: unknown) => void)(params)
}

export interface OpenSocket {
  socket: EngineSocket
  peer: DaemonPeer
}

type ConnectionEffects = Parameters<typeof extensionConnectionMachine.provide>[0]

export interface ExtensionSocketsDeps {
  /** The `sync.full` payload for a new connection. */
  syncFull(): NotificationParams<typeof ServerNotifications, 'sync.full'>
  /** Keepalive timeout (ms) for a silent socket; default the machine's own. */
  limits?: { keepaliveTimeoutMs: number }
}

export class ExtensionSockets {
  private readonly open = new Map<string, OpenSocket>()
  private stoppedAt: number | undefined
  /** The socket effects of the extensionConnection actor, for `.provide()`. */
  readonly connectionEffects: ConnectionEffects

  constructor(deps: ExtensionSocketsDeps) {
    this.connectionEffects = {
      actions: {
        sendSyncFull: (_, { connectionId }) =>
          void this.open.get(connectionId)?.peer.notify('sync.full', deps.syncFull()),
        sendPong: (_, { connectionId, ts }) => void this.open.get(connectionId)?.peer.notify('pong', { ts }),
        closeSocket: (_, { connectionId, code, reason }) => {
          const open = this.open.get(connectionId)
          if (!open) return
          logger.info(`closing extension connection (${reason})`)
          open.peer.close(reason)
          try {
            open.socket.close(code, reason)
          } catch (error) {
            logger.warn('closing the extension socket failed:', error)
          }
        },
      },
      ...(deps.limits === undefined ? {} : { delays: { keepaliveTimeout: deps.limits.keepaliveTimeoutMs } }),
    }
  }

  get stopped(): boolean {
    return this.stoppedAt !== undefined
  }

  /** Open extension sockets (the active one, plus a replaced one that is still closing). */
  get count(): number {
    return this.open.size
  }

  add(connectionId: string, socket: OpenSocket): void {
    this.open.set(connectionId, socket)
  }

  remove(connectionId: string): void {
    this.open.delete(connectionId)
  }

  /** Each actor system's port (a call's effects ask for it several times per call). */
  private readonly ports = new WeakMap<SystemLookup, ExtensionPort>()

  /** The active extension as a call reaches it, in the actor system `system`. */
  portOf(system: SystemLookup): ExtensionPort {
    let port = this.ports.get(system)
    if (!port) this.ports.set(system, (port = this.createPort(system)))
    return port
  }

  private createPort(system: SystemLookup): ExtensionPort {
    const active = (): OpenSocket | undefined => {
      const id = extensionConnectionOf(system)?.getSnapshot().context.connectionId
      return id === undefined ? undefined : this.open.get(id)
    }
    return {
      get connected() {
        const snapshot = extensionConnectionOf(system)?.getSnapshot()
        return snapshot !== undefined && snapshot.value !== 'noConnection'
      },
      notify(method, params, options = {}) {
        const peer = active()?.peer
        if (!peer) return false
        return options.soon ? peer.notifySoon(method, params) : peer.notify(method, params)
      },
      request(method, params) {
        const open = active()
        if (!open) return undefined
        const { id, result } = open.peer.request(method, params)
        return { result, forget: () => open.peer.forget(id) }
      },
    }
  }

  /**
   * The secret changed: every open socket was authenticated with the old one, so close them (4002
   * "secret rotated"). The extension re-reads auth.json and reconnects with the new secret.
   */
  secretRotated(): void {
    for (const { peer, socket } of this.open.values()) {
      peer.close('secret rotated')
      socket.close(4002, 'secret rotated')
    }
  }

  stop(): void {
    this.stoppedAt = Date.now()
    for (const { peer, socket } of this.open.values()) {
      peer.close('daemon stopping')
      socket.close(1001, 'daemon stopping')
    }
    // The connection actor and the pluginTab children stop with the root system.
  }
}

export interface ExtensionLinkDeps {
  /** The started root actor: the actors this link feeds live in its system. */
  system: ActorRefFrom<typeof bridgeSystemMachine>
  sockets: ExtensionSockets
  /** Every request the extension may send, one handler each. */
  methods: MethodHandlers
  onPluginLog(params: ClientNote<'plugin.log'>): void
  /** `sites.report`: the tools pages of turned-on sites declare now (WebMCP). */
  onSitesReport?(params: ClientNote<'sites.report'>): void
  /** The extension is gone: what it reported of open tabs no longer holds. */
  onLost?(): void
}

export interface TabSnapshot {
  state: TabStateName
  tabs: TabInfo[]
  inFlight: number
}

export class ExtensionLink {
  /** Plugins that have a pluginTab actor (spawned through the root on `syncPlugins`). */
  private readonly tabPlugins = new Set<string>()
  /** The active extension, as calls and announcements reach it. */
  readonly port: ExtensionPort

  constructor(private readonly deps: ExtensionLinkDeps) {
    this.port = deps.sockets.portOf(deps.system.system)
    // Effects never throw by design; should one, log it rather than fail silently.
    let connected = false
    this.connection()?.subscribe({
      next: (snapshot) => {
        const now = snapshot.value !== 'noConnection'
        if (connected && !now) deps.onLost?.()
        connected = now
      },
      error: (error: unknown) => logger.error('extension connection actor failed:', error),
    })
    this.ensureTab(BROWSER_PLUGIN)
  }

  /** Takes an authenticated /ws socket; it becomes the active connection. */
  open(socket: EngineSocket): void {
    const { sockets } = this.deps
    const connectionId = randomUUID()
    this.extensionVersion = undefined
    const peer = createDaemonPeer({
      send: (text) => socket.send(text),
      isActive: () => this.isActive(connectionId),
      methods: this.deps.methods,
      notes: this.noteHandlers(connectionId),
      onProblem: (message) => logger.warn(`extension sent something unusable: ${message}`),
    })
    sockets.add(connectionId, { socket, peer })
    socket.onMessage((text) => {
      if (sockets.stopped) return
      this.connection()?.send({ type: 'ws.activity', connectionId })
      peer.receive(text)
    })
    socket.onClose((code) => {
      peer.close()
      sockets.remove(connectionId)
      if (sockets.stopped) return
      logger.info(`extension connection closed (code ${code})`)
      this.connection()?.send({ type: 'ws.closed', connectionId })
    })
    logger.info('extension connected')
    this.connection()?.send({ type: 'ws.opened', connectionId })
  }

  get connected(): boolean {
    return this.port.connected
  }

  /** The connected extension's version, as it said in its last `tab.syncAll` (older ones say nothing). */
  private extensionVersion: string | undefined

  get connectedVersion(): string | undefined {
    return this.port.connected ? this.extensionVersion : undefined
  }

  /** Keeps one pluginTab actor per loaded plugin (plus `browser`, which only counts calls). */
  syncPlugins(names: readonly string[]): void {
    const wanted = new Set(names)
    for (const name of names) this.ensureTab(name)
    for (const name of [...this.tabPlugins])
      if (name !== BROWSER_PLUGIN && !wanted.has(name)) {
        this.tabPlugins.delete(name)
        this.deps.system.send({ type: 'pluginTab.stop', plugin: name })
      }
  }

  tab(plugin: string): TabSnapshot | undefined {
    const snapshot = pluginTabOf(this.deps.system.system, plugin)?.getSnapshot()
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
    const tab = plugin === BROWSER_PLUGIN ? undefined : pluginTabOf(this.deps.system.system, plugin)
    tab?.send({ type: 'tabs.update', state, tabs })
    return tab !== undefined
  }

  private connection() {
    return extensionConnectionOf(this.deps.system.system)
  }

  private ensureTab(name: string): void {
    if (this.tabPlugins.has(name)) return
    this.tabPlugins.add(name)
    this.deps.system.send({ type: 'pluginTab.spawn', plugin: name })
    pluginTabOf(this.deps.system.system, name)?.subscribe({
      error: (error: unknown) => logger.error(`${systemIdOf('pluginTab', name)} failed:`, error),
    })
  }

  private isActive(connectionId: string): boolean {
    return this.connection()?.getSnapshot().context.connectionId === connectionId
  }

  /** A call's actor by its systemId; the id comes from the extension, so it may name nothing. */
  private invocation(dispatchId: string) {
    return toolInvocationOf(this.deps.system.system, dispatchId)
  }

  /**
   * What the extension tells the daemon on connection `connectionId`, one handler per notification
   * (only the active connection's reach them, see `createDaemonPeer`): typed as NoteHandlers, so a
   * notification added to src/protocol without a handler here does not compile.
   */
  private noteHandlers(connectionId: string): NoteHandlers {
    return {
      ping: ({ ts }) => this.connection()?.send({ type: 'ws.ping', connectionId, ts }),
      'tab.syncAll': ({ plugins, extensionVersion }) => {
        this.extensionVersion = extensionVersion
        for (const name of this.tabPlugins) {
          // Sites' own tools (an origin, not a plugin) are reported by `sites.report` instead.
          if (name === BROWSER_PLUGIN || name.includes('://')) continue
          const reported = Object.hasOwn(plugins, name) ? plugins[name] : undefined
          pluginTabOf(this.deps.system.system, name)?.send({
            type: 'tabs.update',
            state: reported?.state ?? 'closed',
            tabs: reported?.tabs ?? [],
          })
        }
      },
      'tool.progress': ({ dispatchId, progress, total, message }) =>
        this.invocation(dispatchId)?.send({
          type: 'tool.progress',
          progress,
          ...(total === undefined ? {} : { total }),
          ...(message === undefined ? {} : { message }),
        }),
      'confirmation.response': ({ id, decision }) =>
        this.invocation(id)?.send({ type: 'confirmation.response', decision }),
      'plugin.log': (params) => this.deps.onPluginLog(params),
      'sites.report': (params) => this.deps.onSitesReport?.(params),
    }
  }
}
