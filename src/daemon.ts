/**
 * The composition root: the only place real effects are wired into the machines. Reading it top to
 * bottom tells how the daemon fits together: files -> actor system -> routes -> front -> engine.
 */
import { createActor, fromPromise, type Actor, type ActorRefFrom } from 'xstate'
import { bridgeSystemMachine } from '../machines/bridgeSystemMachine'
import { configStoreMachine } from '../machines/configStoreMachine'
import { extensionConnectionMachine } from '../machines/extensionConnectionMachine'
import { mcpSessionMachine } from '../machines/mcpSessionMachine'
import { reloadMachine } from '../machines/reloadMachine'
import { createConfigStore, persistConfigChange, type ConfigStore } from './config/configStore'
import { writeServerInfo } from './config/extensionInstall'
import { bridgePaths, type BridgePaths } from './config/paths'
import { readSecret } from './config/auth'
import { createClientRegistry } from './config/clientRegistry'
import { prepareConfigDir } from './config/setup'
import { createEngine, type EngineChoice } from './http/createEngine'
import type { EngineName } from './http/engine'
import { createFront } from './http/front'
import { errorResponse } from './http/responses'
import { healthSource } from './daemonHealth'
import { proofRoute } from './http/proof'
import { createRoutes } from './http/routes'
import { attachLogFile, detachLogFile, log, registerSecret } from './log'
import { callsSettled, callTool, runningCalls } from './mcp/toolCalls'
import { provideToolInvocation } from './mcp/invocationEffects'
import { McpSessions } from './mcp/mcpSessions'
import { toCallToolResult } from './mcp/toolResults'
import { ExtensionLink } from './ws/extensionLink'
import { createMethodHandlers } from './ws/methods'
import { PluginLogs } from './ws/pluginLogs'
import { AuditFile, AuditLog } from './audit'
import { createToolCatalog } from './catalog/toolCatalog'
import { createSiteRegistry } from './sites/siteRegistry'
import { markSiteOutcome } from './sites/siteResult'
import { throttle } from './sites/throttle'
import { createRateLimiter } from './http/rateLimit'
import type { Config } from './config/schema'
import { allowAlwaysPersists, withToolPermission } from './config/permissions'
import { createPluginHost } from './plugins'
import type { DevWatcher } from './plugins/devWatcher'
import { resolveLocalPluginPath } from './config/localPlugins'
import { createBrowserToolContext } from './config/uploadFolders'
import { limitsFromEnv } from './mcp/limits'
import { startInspector } from './inspect'
import { BROWSER_TOOLS, browserToolNarrowing, type BrowserTool } from './tools'
import {
  BRIDGE_VERSION,
  HTTP_MAX_BODY_BYTES,
  LOOPBACK_HOST,
  PROTOCOL_VERSION,
  SESSION_RATE_LIMIT_PER_MIN,
  WS_MAX_PAYLOAD_BYTES,
} from './protocol/constants'

const logger = log.withTag('daemon')
/** How long calls in flight may take to finish after SIGTERM, and then to record their failure. */
const SHUTDOWN_GRACE_MS = 1_500
/** Shortest time between two `tools/list_changed` caused by pages' own tools (WebMCP). */
const SITE_LIST_CHANGED_INTERVAL_MS = 1_000

export interface DaemonOptions {
  configDir: string
  port: number
  engine: EngineChoice
  mode: 'dev' | 'production'
  /** BRIDGE_DANGEROUSLY_SKIP_PERMISSIONS=1. */
  skipPermissionsEnv: boolean
  /** Built-in browser tools; default: every tool of src/tools. */
  browserTools?: () => readonly BrowserTool[]
  /** Stream the actor system to the inspector at this loopback ws:// URL (see src/inspect.ts). */
  inspectUrl?: string
}

export interface Daemon {
  readonly port: number
  readonly url: string
  readonly engine: EngineName
  readonly paths: BridgePaths
  readonly configStore: ConfigStore
  readonly system: Actor<typeof bridgeSystemMachine>
  stop(): Promise<void>
}

/** Prepares the config directory, starts the actor system and listens on 127.0.0.1. Throws BridgeError. */
export async function createDaemon(options: DaemonOptions): Promise<Daemon> {
  const paths = bridgePaths(options.configDir)
  const files = prepareConfigDir(paths)
  attachLogFile(paths.serverLog)
  registerSecret(files.secret)
  const startedAt = Date.now()
  // Secret rotation: `bridge config rotate-secret` writes a new auth.json, then POSTs /reload with the
  // old secret. From then on only the new one is accepted; the extension re-reads auth.json and reconnects.
  const reloadSecret = (): void => {
    try {
      const next = readSecret(paths.authFile)
      if (next === files.secret) return
      registerSecret(next)
      files.secret = next
      logger.info('auth.json holds a new secret: the previous one is no longer accepted')
      link.secretRotated()
    } catch (error) {
      logger.warn(
        `reload: kept the current secret: ${error instanceof Error ? error.message : String(error)}`,
      )
    }
  }

  // Named MCP clients (clients.json): their tokens open /mcp only. Re-read at each reload and on change.
  const onClientRemoved = (name: string): void => {
    logger.info(`MCP client "${name}" no longer has access: its sessions end now`)
    sessions.closeClient(name)
  }
  const clients = createClientRegistry({
    file: paths.clientsFile,
    onRemoved: (name) => onClientRemoved(name),
    onToken: registerSecret,
  })

  // Plugins: discovery runs as the reload actor's effect; the host keeps the current registry.
  const pluginHost = createPluginHost({
    configDir: paths.dir,
    env: process.env,
    readConfig: () => {
      reloadSecret()
      clients.reload()
      return configStore.reload()
    },
    onReloaded: () => {
      devWatcher?.refresh()
      pluginsReloaded()
    },
  })
  const browserTools = options.browserTools ?? (() => BROWSER_TOOLS)
  const skipPermissions = () => options.skipPermissionsEnv || configStore.get().skipPermissions === true
  // Sites' own tools (WebMCP): what the extension reports of turned-on sites, under config.json's `sites`.
  const siteRegistry = createSiteRegistry({ sites: () => configStore.get().sites, skipPermissions })
  // One tool index, rebuilt when the plugins, the permissions or the skip flag change.
  const catalog = createToolCatalog({
    plugins: () => pluginHost.snapshot().plugins,
    failedPlugins: () => pluginHost.snapshot().failedPlugins,
    browserTools,
    permissions: () => configStore.get().permissions,
    skipPermissions,
    // Upload and drop read files by path only from the folders config.json allows (none by default).
    browserToolContext: createBrowserToolContext(() => configStore.get().uploadFolders ?? []),
    sites: () => siteRegistry.view(),
  })
  const limits = limitsFromEnv()
  const auditFile = new AuditFile({ dir: paths.dir, rotateBytes: limits.auditRotateBytes })
  const audit = new AuditLog({
    file: auditFile,
    onWriteError: (error) => logger.error('could not write audit.log:', error),
  })
  const pluginLogs = new PluginLogs({
    isPlugin: (name) => pluginHost.snapshot().plugins.some((p) => p.name === name),
  })
  const updateConfig = (mutate: (current: Config) => Config) => configStore.update(mutate)

  const syncFull = () => ({
    protocolVersion: PROTOCOL_VERSION,
    serverVersion: BRIDGE_VERSION,
    skipPermissions: catalog.skipPermissions(),
    plugins: catalog.pluginStates(),
    browserTools: catalog.browserToolStates(),
    sites: catalog.siteStates(),
  })
  // The extension on /ws: its requests go to one method table; what it reports goes to the actors.
  const link: ExtensionLink = new ExtensionLink({
    keepaliveTimeoutMs: limits.keepaliveTimeoutMs,
    syncFull,
    methods: createMethodHandlers({
      tabStateChanged: ({ plugin, state, tabs }) => link.tabStateChanged(plugin, state, tabs),
      config: { catalog, updateConfig, onChanged: () => configChanged() },
      registry: {
        env: process.env,
        configDir: paths.dir,
        config: () => configStore.get(),
        updateConfig,
        reload: () => pluginHost.reload('request'),
        pluginState: (name) => catalog.pluginStates().find((p) => p.name === name),
      },
      sites: { catalog, updateConfig, onChanged: () => configChanged() },
      folders: {
        allowed: () => [
          paths.dir,
          ...pluginHost
            .snapshot()
            .plugins.filter((p) => p.source === 'local')
            .map((p) => p.path),
        ],
      },
    }),
    // Bounded, neutralized and tagged with the plugin that wrote it (./ws/pluginLogs).
    onPluginLog: ({ entries }) => {
      for (const entry of pluginLogs.add(entries)) sessions.log(entry.level, entry.logger, entry.data)
    },
    onSitesReport: (report) => {
      siteRegistry.report(report)
      sitesChanged()
    },
    onLost: () => {
      siteRegistry.clear()
      sitesChanged()
    },
  })
  // MCP clients on /mcp: one session each; every tools/call becomes a toolInvocation actor.
  const sessions: McpSessions = new McpSessions({
    listToolsJson: () => catalog.listedJson(),
    callTool: (request) => {
      const call = callTool({ system, catalog, audit }, request)
      const narrowing = browserToolNarrowing(request.name)
      // A site's tool answers with the page's content: marked as such (./sites/siteResult).
      const site = catalog.get(request.name)?.site
      const outcome = site ? call.outcome.then((o) => markSiteOutcome(site, o)) : call.outcome
      return {
        result: outcome.then((o) => toCallToolResult(o, limits.resultMaxBytes, narrowing)),
        cancel: call.cancel,
      }
    },
    initializeLimiter: createRateLimiter({ limit: SESSION_RATE_LIMIT_PER_MIN }),
    maxSessions: limits.maxMcpSessions,
  })
  /**
   * Sites' tools changed (a page registered or dropped one, a tab closed, a setting): each site with
   * tools gets a tab actor (call slots, the tab an approval names), the extension hears which sites to
   * watch, and MCP sessions hear of it when their tool list changed.
   */
  let listedBefore = ''
  const sitesChanged = () => {
    const sites = catalog.siteStates()
    link.syncPlugins([...catalog.pluginStates().map((p) => p.name), ...sites.map((s) => s.origin)])
    for (const { origin } of sites) {
      const tabs = siteRegistry
        .view()
        .tools.filter((t) => t.origin === origin)
        .flatMap((t) => t.tabs)
      const unique = [...new Map(tabs.map((tab) => [tab.tabId, tab])).values()]
      link.tabStateChanged(origin, unique.length > 0 ? 'ready' : 'closed', unique)
    }
    link.notify('sites.changed', { sites })
    siteListChanged()
  }
  // Agents hear of a page's changes at most once a second (./sites/throttle), and only of real ones.
  const siteListChanged = throttle(SITE_LIST_CHANGED_INTERVAL_MS, () => {
    const listed = catalog.listedJson()
    if (listed !== listedBefore) sessions.toolsChanged()
    listedBefore = listed
  })
  // Permissions or the skip flag changed (side panel, "always allow", CLI): everyone hears it.
  const configChanged = () => {
    link.notify('plugins.changed', {
      plugins: catalog.pluginStates(),
      failedPlugins: catalog.failedPlugins(),
      browserTools: catalog.browserToolStates(),
      skipPermissions: catalog.skipPermissions(),
    })
    sitesChanged()
    sessions.toolsChanged()
  }
  /** Adapter hash per plugin as last announced, to tell which plugins a reload rebuilt (dev mode). */
  let builds = new Map<string, string>()
  const pluginsReloaded = () => {
    const states = catalog.pluginStates()
    link.syncPlugins([...states.map((p) => p.name), ...catalog.siteStates().map((s) => s.origin)])
    if (options.mode === 'dev')
      for (const state of states)
        if (builds.has(state.name) && builds.get(state.name) !== state.adapterHash)
          link.notify('plugin.update', state)
    builds = new Map(states.map((state) => [state.name, state.adapterHash]))
    link.notify('sync.full', syncFull())
    configChanged()
  }

  const inspector = options.inspectUrl === undefined ? undefined : await startInspector(options.inspectUrl)
  // The root actor system, every actor's effects provided once: configStore, reload and
  // extensionConnection run for the daemon's life; pluginTab, mcpSession and toolInvocation are spawned.
  const system = createActor(
    bridgeSystemMachine.provide({
      actors: {
        reload: reloadMachine.provide({
          actors: { discover: fromPromise(({ input }) => pluginHost.discover(input)) },
        }),
        configStore: configStoreMachine.provide({
          actors: { persist: fromPromise(persistConfigChange(paths.configFile)) },
        }),
        extensionConnection: extensionConnectionMachine.provide(link.connectionEffects),
        mcpSession: mcpSessionMachine.provide(sessions.sessionEffects),
        toolInvocation: provideToolInvocation({
          catalog,
          port: link,
          tabs: (plugin) => link.tab(plugin),
          audit,
          limits,
          // "Allow always" never turns JavaScript evaluation to auto: the call runs once, nothing is saved.
          allowAlways: (plugin, tool, version) => {
            if (!allowAlwaysPersists(plugin, tool)) return
            void updateConfig((config) => ({
              ...config,
              permissions: withToolPermission(config.permissions, plugin, tool, 'auto', version),
            })).then(configChanged, (error: unknown) =>
              logger.error(`could not save "always allow" for ${plugin} ${tool}:`, error),
            )
          },
        }),
      },
    }),
    { input: { config: files.config }, ...(inspector ? { inspect: inspector.inspect } : {}) },
  )
  system.subscribe({ error: (error: unknown) => logger.error('the actor system failed:', error) })
  system.start()
  const configStore = createConfigStore(
    system.system.get('configStore') as ActorRefFrom<typeof configStoreMachine>,
  )
  link.attach(system)
  sessions.attach(system)
  pluginHost.attach(system.system.get('reload') as ActorRefFrom<typeof reloadMachine>)
  // Dev mode: local plugin builds and config.json edits trigger a reload (the watcher, chokidar with
  // it, loads in dev mode only).
  const devWatcher: DevWatcher | undefined =
    options.mode === 'dev'
      ? (await import('./plugins/devWatcher')).createDevWatcher({
          configFile: paths.configFile,
          localDirs: () =>
            configStore.get().localPlugins.map((entry) => resolveLocalPluginPath(entry, paths.dir)),
          onChange: (why) => {
            logger.info(`dev: ${why}; reloading plugins`)
            void pluginHost.reload('watch')
          },
        })
      : undefined
  await pluginHost.reload('startup')
  let port = 0
  const getHealth = healthSource({
    mode: options.mode,
    startedAt,
    engine: () => engine.name,
    browserTools,
    pluginHost,
    link,
    pluginLogs,
    sessions,
    audit,
    catalog,
    skipPermissions,
    devWatcher,
    system,
  })

  const routes = createRoutes({
    getHealth,
    wsUrl: () => `ws://${LOOPBACK_HOST}:${port}/ws`,
    openExtensionSocket: (socket) => link.open(socket),
    mcp: (request, client) => sessions.handle(request, client),
    queryAudit: (query) => audit.query(query),
    reloadExtension: () => link.notify('extension.reload', {}),
  }).concat([pluginHost.route(), proofRoute(() => files.secret)])
  const front = createFront({
    routes,
    port: () => port,
    secret: () => files.secret,
    clients: () => clients.current(),
    maxBodyBytes: HTTP_MAX_BODY_BYTES,
  })
  // Shutting down: requests already running finish; new ones are refused.
  let stopping = false
  const engine = createEngine(options.engine, {
    handler: (request) =>
      stopping
        ? Promise.resolve(errorResponse('service_unavailable', 'the daemon is shutting down'))
        : front.handle(request),
    upgrade: front.upgrade,
    limits: {
      maxBodyBytes: HTTP_MAX_BODY_BYTES,
      maxPayloadBytes: WS_MAX_PAYLOAD_BYTES,
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      maxConnections: 256,
    },
  })
  const stopCalls = async () => {
    await sessions.closeAll()
    link.stop()
    await auditFile.close()
  }
  try {
    port = (await engine.start({ host: LOOPBACK_HOST, port: options.port })).port
  } catch (error) {
    // Could not listen (port in use): release everything already started so the caller can exit.
    await devWatcher?.close()
    await stopCalls()
    system.stop()
    inspector?.stop()
    clients.close()
    detachLogFile()
    throw error
  }
  const url = `http://${LOOPBACK_HOST}:${port}`
  // The extension reads its daemon's port from this file beside its code (see extension/background/localFiles.ts).
  writeServerInfo(paths.extensionDir, port)
  logger.info(`bridge listening on ${url} (engine ${engine.name}, ${options.mode} mode, config ${paths.dir})`)

  return {
    port,
    url,
    engine: engine.name,
    paths,
    configStore,
    system,
    async stop() {
      stopping = true
      siteListChanged.cancel()
      await devWatcher?.close()
      // Calls in flight get a grace period to finish; those still running then fail with
      // shutting_down. Either way each records its audit entry and answers before sessions close.
      await callsSettled(system, SHUTDOWN_GRACE_MS)
      for (const call of runningCalls(system)) call.send({ type: 'daemon.stopping' })
      await callsSettled(system, SHUTDOWN_GRACE_MS)
      // Let the last answers leave before the sessions and their streams close.
      await new Promise((resolve) => setTimeout(resolve, 200))
      clients.close()
      await stopCalls()
      await engine.stop()
      system.send({ type: 'system.stop' })
      system.stop()
      inspector?.stop()
      logger.info('bridge stopped')
      detachLogFile()
    },
  }
}
