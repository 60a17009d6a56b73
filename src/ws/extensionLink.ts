/**
 * The daemon's end of /ws: routes what the extension says to the actors it concerns, found through
 * the typed lookups of machines/systemActors.ts: socket life to `extensionConnection` (which decides
 * the one active socket), tab reports to `pluginTab:<plugin>`, progress and approval decisions to
 * `toolInvocation:<id>`. Requests go to the one method table (src/ws/methods.ts). Built once the
 * actor system runs, with that system; the sockets themselves live in ./extensionSockets.
 */
import { randomUUID } from 'node:crypto'
import type { ActorRefFrom } from 'xstate'
import type { bridgeSystemMachine } from '../../machines/bridgeSystemMachine'
import { extensionConnectionOf, pluginTabOf, systemIdOf, toolInvocationOf } from '../../machines/systemActors'
import type { EngineSocket } from '../http/engine'
import { log } from '../log'
import { BROWSER_PLUGIN, type TabInfo, type TabStateName } from '../protocol'
import { createDaemonPeer, type ClientNote, type NoteHandlers } from './daemonPeer'
import type { ExtensionPort, ExtensionSockets } from './extensionSockets'
import type { MethodHandlers } from './methodHandler'

export type { ExtensionPort } from './extensionSockets'

const logger = log.withTag('ws')

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
   * (only the active connection's reach them, see ./daemonPeer): typed as NoteHandlers, so a
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
