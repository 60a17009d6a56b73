/**
 * The composition root: the only place real effects are wired into the machines. Reading it top to
 * bottom tells how the daemon fits together: files -> actor system -> routes -> front -> engine.
 */
import { createActor, fromPromise, waitFor, type Actor } from 'xstate'
import { bridgeSystemMachine } from '../machines/bridgeSystemMachine'
import { configStoreMachine } from '../machines/configStoreMachine'
import { extensionConnectionMachine } from '../machines/extensionConnectionMachine'
import { reloadMachine } from '../machines/reloadMachine'
import { AuditFile, AuditLog } from './audit'
import { createAnnouncements, syncFullOf } from './catalog/announcements'
import { pageTextOf } from './catalog/pageText'
import { createToolCatalog } from './catalog/toolCatalog'
import { createClientScopeGate } from './config/clientScopeGate'
import { configStoreIn, persistConfigChange, type ConfigStore } from './config/configStore'
import { createCredentials } from './config/credentials'
import { writeServerInfo } from './config/extensionInstall'
import { resolveLocalPluginPath } from './config/localPlugins'
import { bridgePaths, type BridgePaths } from './config/paths'
import { prepareConfigDir } from './config/setup'
import { createBrowserToolContext } from './config/uploadFolders'
import { healthSource } from './daemonHealth'
import { createEngine, DAEMON_ENGINE_LIMITS, type EngineChoice } from './http/createEngine'
import type { EngineName } from './http/engine'
import { createFront } from './http/front'
import { proofRoute } from './http/proof'
import { createRateLimiter } from './http/rateLimit'
import { errorResponse } from './http/responses'
import { createRoutes } from './http/routes'
import { startInspector } from './machineInspector'
import { attachLogFile, detachLogFile, log } from './log'
import { provideToolInvocation } from './calls/invocationEffects'
import { limitsFromEnv } from './calls/limits'
import { createApprovalBroker } from './mcp/approvalBroker'
import { McpSessions } from './mcp/mcpSessions'
import { callTool } from './calls/toolCalls'
import { createPluginHost, reloadRoute, requestReload } from './plugins'
import { startDevWatcher } from './plugins/devMode'
import { HTTP_MAX_BODY_BYTES, LOOPBACK_HOST } from './protocol/constants'
import { BROWSER_TOOLS, type BrowserTool } from './tools'
import { ExtensionLink } from './ws/extensionLink'
import { ExtensionSockets } from './ws/extensionSockets'
import { daemonMethodHandlers } from './ws/methods'
import { PluginLogs } from './ws/pluginLogs'
import { createSiteAnnouncements } from './sites/siteAnnouncements'
import { createSiteRegistry } from './sites/siteRegistry'
import { markSiteOutcome } from './sites/siteResult'

const logger = log.withTag('daemon')

export interface DaemonOptions {
  configDir: string
  port: number
  engine: EngineChoice
  mode: 'dev' | 'production'
  /** BRIDGE_DANGEROUSLY_SKIP_PERMISSIONS=1. */
  skipPermissionsEnv: boolean
  /** Built-in browser tools; default: every tool of src/tools. */
  browserTools?: () => readonly BrowserTool[]
  /** Stream the actor system to the inspector at this loopback ws:// URL (see src/machineInspector.ts). */
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
  const startedAt = Date.now()
  const limits = limitsFromEnv()
  const browserTools = options.browserTools ?? (() => BROWSER_TOOLS)
  const skipPermissions = () => options.skipPermissionsEnv || configStore.get().skipPermissions === true
  // Sites' own tools (WebMCP): what the extension reports of turned-on sites, under config.json's `sites`.
  const siteRegistry = createSiteRegistry({ sites: () => configStore.get().sites, skipPermissions })

  // What the actors' effects work on: plugins (discovery is the reload actor's effect), one tool
  // index rebuilt when plugins or permissions change, the audit log, the extension's sockets.
  const pluginHost = createPluginHost({
    configDir: paths.dir,
    env: process.env,
    readConfig: () => (credentials.reread(), configStore.reload()),
    onReloaded: () => (devWatcher?.refresh(), announcements.pluginsReloaded()),
  })
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
  const auditFile = new AuditFile({
    dir: paths.dir,
    rotateBytes: limits.auditRotateBytes,
    syncWindowMs: limits.auditSyncWindowMs,
  })
  const audit = new AuditLog({
    file: auditFile,
    // Every entry, denied and timed-out calls too, so the side panel's Recent activity is live.
    onRecorded: (entry) =>
      void link.port.notify('audit.recorded', { tool: entry.tool, success: entry.success }, { soon: true }),
    onWriteError: (error) => logger.error('could not write audit.log:', error),
  })
  const sockets = new ExtensionSockets({
    syncFull: () => syncFullOf(catalog),
    keepaliveTimeoutMs: limits.keepaliveTimeoutMs,
  })
  const credentials = createCredentials({
    authFile: paths.authFile,
    clientsFile: paths.clientsFile,
    secret: files.secret,
    onSecretRotated: () => sockets.secretRotated(),
    onClientRemoved: (name) => sessions.closeClient(name),
    onClientScopeChanged: () => sessions.toolsChanged(),
  })
  // What each MCP client may use (clients.json `scope`): its tools/list and its calls.
  const scopes = createClientScopeGate({ clients: () => credentials.clients(), catalog })

  // Approvals a trusted MCP client shows itself: the first answer, there or in the side panel, decides.
  const approvalBroker = createApprovalBroker({ decide: (id, decision) => link.answerApproval(id, decision) })

  // The root actor system: configStore, reload and extensionConnection live as long as the daemon;
  // pluginTab and toolInvocation children are spawned. Every effect receives the system it runs in.
  const inspector = options.inspectUrl === undefined ? undefined : await startInspector(options.inspectUrl)
  const root = createActor(
    bridgeSystemMachine.provide({
      actors: {
        reload: reloadMachine.provide({
          actors: { discover: fromPromise(({ input }) => pluginHost.discover(input)) },
        }),
        configStore: configStoreMachine.provide({
          actors: { persist: fromPromise(persistConfigChange(paths.configFile)) },
        }),
        extensionConnection: extensionConnectionMachine.provide(sockets.connectionEffects),
        toolInvocation: provideToolInvocation({
          catalog,
          portOf: (system) => sockets.portOf(system),
          audit,
          limits,
          updateConfig: (mutate) => configStore.update(mutate),
          onConfigChanged: () => announcements.configChanged(),
          scopes,
          approvals: approvalBroker,
        }),
      },
    }),
    { input: { config: files.config }, ...(inspector ? { inspect: inspector.inspect } : {}) },
  )
  root.subscribe({ error: (error: unknown) => logger.error('the actor system failed:', error) })
  root.start()
  const configStore = configStoreIn(root.system)

  // Who talks to the system: MCP clients on /mcp, the extension on /ws.
  const sessions = new McpSessions({
    // Each client lists what its scope allows (clients.json, bridge client set).
    listToolsJson: (client) => scopes.listedJson(client),
    callTool: async (request) => {
      // A site's tool answers with the page's content: marked as such (./sites/siteResult).
      const site = catalog.get(request.name)?.site
      const outcome = await callTool({ system: root, catalog, audit }, request)
      return site ? markSiteOutcome(site, outcome) : outcome
    },
    resultMaxBytes: limits.resultMaxBytes,
    pageText: (name) => pageTextOf(catalog, name),
    hasOutputSchema: (name) => catalog.get(name)?.outputSchema !== undefined,
    approvals: approvalBroker,
    approvalsInClient: (name) =>
      credentials.clients().some((client) => client.name === name && client.approvalsInClient === true),
    initializeLimiter: createRateLimiter({ limit: limits.mcpSessionsPerMinute }),
    sessionsPerMinute: limits.mcpSessionsPerMinute,
    maxSessions: limits.maxMcpSessions,
  })
  const pluginLogs = new PluginLogs({
    isPlugin: (name) => pluginHost.snapshot().plugins.some((p) => p.name === name),
  })
  const link: ExtensionLink = new ExtensionLink({
    system: root,
    sockets,
    methods: daemonMethodHandlers({
      catalog,
      configStore,
      configDir: paths.dir,
      localPluginPaths: () => pluginHost.localPluginPaths(),
      reload: () => requestReload(root.system, 'request'),
      onConfigChanged: () => announcements.configChanged(),
      tabStateChanged: ({ plugin, state, tabs }) => link.tabStateChanged(plugin, state, tabs),
    }),
    // Bounded, neutralized and tagged with the plugin that wrote it (./ws/pluginLogs).
    onPluginLog: ({ entries }) => {
      for (const entry of pluginLogs.add(entries)) sessions.log(entry.level, entry.logger, entry.data)
    },
    onSitesReport: (report) => (siteRegistry.report(report), siteAnnouncements.changed()),
    onLost: () => (siteRegistry.clear(), siteAnnouncements.changed()),
  })
  const siteAnnouncements = createSiteAnnouncements({
    catalog,
    registry: siteRegistry,
    extension: link,
    mcp: sessions,
  })
  const announcements = createAnnouncements({
    catalog,
    mode: options.mode,
    extension: link,
    mcp: sessions,
    sites: siteAnnouncements,
  })
  const devWatcher = await startDevWatcher(options.mode, {
    configFile: paths.configFile,
    localDirs: () => configStore.get().localPlugins.map((entry) => resolveLocalPluginPath(entry, paths.dir)),
    reload: () => requestReload(root.system, 'watch'),
  })
  await requestReload(root.system, 'startup')

  // The front: routes behind the security gate, on one HTTP engine; refused once draining starts.
  let port = 0
  const front = createFront({
    routes: [
      ...createRoutes({
        getHealth: healthSource({
          mode: options.mode,
          startedAt,
          engine: () => engine.name,
          browserTools,
          skipPermissions,
          pluginHost,
          link,
          pluginLogs,
          sessions,
          audit,
          catalog,
          devWatcher,
          system: root,
        }),
        wsUrl: () => `ws://${LOOPBACK_HOST}:${port}/ws`,
        openExtensionSocket: (socket) => link.open(socket),
        mcp: (request, client) => sessions.handle(request, client),
        queryAudit: (query) => audit.query(query),
        reloadExtension: () => link.port.notify('extension.reload', {}),
      }),
      reloadRoute(root.system),
      proofRoute(() => credentials.secret()),
    ],
    port: () => port,
    secret: () => credentials.secret(),
    clients: () => credentials.clients(),
    maxBodyBytes: HTTP_MAX_BODY_BYTES,
  })
  const engine = createEngine(options.engine, {
    handler: (request) =>
      root.getSnapshot().matches({ live: 'running' })
        ? front.handle(request)
        : Promise.resolve(errorResponse('service_unavailable', 'the daemon is shutting down')),
    upgrade: front.upgrade,
    limits: DAEMON_ENGINE_LIMITS,
  })
  // Sessions and their streams end, sockets close, the audit file is flushed; then the engine stops.
  const release = async (listening: boolean) => {
    siteAnnouncements.stop()
    await devWatcher?.close()
    credentials.close()
    await sessions.closeAll()
    sockets.stop()
    await auditFile.close()
    if (listening) await engine.stop()
    root.send({ type: 'system.stop' })
    root.stop()
    inspector?.stop()
  }
  try {
    port = (await engine.start({ host: LOOPBACK_HOST, port: options.port })).port
  } catch (error) {
    // Could not listen (port in use): release everything already started so the caller can exit.
    await release(false)
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
    system: root,
    async stop() {
      // Draining (machines/bridgeSystemMachine.ts): calls in flight finish or fail with shutting_down,
      // each recording its audit entry and answering before its session closes.
      root.send({ type: 'system.drain' })
      await waitFor(root, (snapshot) => snapshot.matches({ live: 'drained' }))
      // Let the last answers leave before the sessions and their streams close.
      await new Promise((resolve) => setTimeout(resolve, 200))
      await release(true)
      logger.info('bridge stopped')
      detachLogFile()
    },
  }
}
