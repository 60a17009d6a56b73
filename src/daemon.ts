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
import { syncFullOf } from './catalog/announcements'
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
import type { EngineChoice } from './http/createEngine'
import { createDaemonFront } from './http/daemonFront'
import type { EngineName } from './http/engine'
import { startInspector } from './machineInspector'
import { attachLogFile, detachLogFile, log } from './log'
import { provideToolInvocation } from './calls/invocationEffects'
import { limitsFromEnv } from './calls/limits'
import { createApprovalBroker } from './mcp/approvalBroker'
import { createDaemonSessions } from './mcp/daemonSessions'
import { createPluginHost, reloadRoute, requestReload } from './plugins'
import { startDevWatcher } from './plugins/devMode'
import { LOOPBACK_HOST } from './protocol/constants'
import { BROWSER_TOOLS, type BrowserTool } from './tools'
import { createDaemonLink } from './ws/daemonLink'
import { ExtensionSockets } from './ws/extensionSockets'
import { createSiteRegistry } from './sites/siteRegistry'

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
  const approvals = createApprovalBroker({ decide: (id, decision) => link.answerApproval(id, decision) })

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
          approvals,
        }),
      },
    }),
    { input: { config: files.config }, ...(inspector ? { inspect: inspector.inspect } : {}) },
  )
  root.subscribe({ error: (error: unknown) => logger.error('the actor system failed:', error) })
  root.start()
  const configStore = configStoreIn(root.system)

  // Who talks to the system: MCP clients on /mcp, the extension on /ws (link <-> sessions bound late).
  const sessions = createDaemonSessions({
    system: root,
    catalog,
    audit,
    scopes,
    credentials,
    approvals,
    limits,
  })
  const { link, pluginLogs, siteAnnouncements, announcements } = createDaemonLink({
    system: root,
    sockets,
    catalog,
    configStore,
    configDir: paths.dir,
    pluginHost,
    siteRegistry,
    sessions,
    mode: options.mode,
  })
  const devWatcher = await startDevWatcher(options.mode, {
    configFile: paths.configFile,
    localDirs: () => configStore.get().localPlugins.map((entry) => resolveLocalPluginPath(entry, paths.dir)),
    reload: () => requestReload(root.system, 'watch'),
  })
  await requestReload(root.system, 'startup')

  // The front: routes behind the security gate, on one HTTP engine; refused once draining starts.
  const getHealth = healthSource({
    mode: options.mode,
    startedAt,
    engine: () => front.engine.name,
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
  })
  const front = createDaemonFront({
    services: {
      getHealth,
      openExtensionSocket: (socket) => link.open(socket),
      mcp: (request, client) => sessions.handle(request, client),
      queryAudit: (query) => audit.query(query),
      reloadExtension: () => link.port.notify('extension.reload', {}),
    },
    routes: [reloadRoute(root.system)],
    secret: () => credentials.secret(),
    clients: () => credentials.clients(),
    engine: options.engine,
    accepting: () => root.getSnapshot().matches({ live: 'running' }),
  })
  const { engine } = front
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
  let port: number
  try {
    port = await front.listen(options.port)
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
