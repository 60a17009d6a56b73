/**
 * The composition root: the only place real effects are wired into the machines. Reading it top to
 * bottom tells how the daemon fits together: config -> stores -> the call path -> root actor ->
 * sessions -> link -> front -> start/stop. Each part is built by a factory beside its owner; a part
 * that needs one built after it reaches it through a closure, named where it is passed.
 */
import { createActor, type Actor } from 'xstate'
import { bridgeSystemMachine } from '../machines/bridgeSystemMachine'
import { configStoreMachine } from '../machines/configStoreMachine'
import { extensionConnectionMachine } from '../machines/extensionConnectionMachine'
import { reloadMachine } from '../machines/reloadMachine'
import { randomUUID } from 'node:crypto'
import { createDaemonAudit } from './audit/daemonAudit'
import { provideToolInvocation } from './calls/invocationEffects'
import { callTool } from './calls/toolCalls'
import { createFlowGuard } from './guard/flowGuard'
import { createGuardStep } from './guard/guardStep'
import { limitsFromEnv } from './calls/limits'
import { syncFullOf } from './catalog/announcements'
import { createDaemonCatalog } from './catalog/daemonCatalog'
import { createClientScopeGate } from './config/clientScopes'
import { createBrowserToolContext } from './config/uploadFolders'
import { configStoreEffects, configStoreIn, type ConfigStore } from './config/configStore'
import { createCredentials } from './config/credentials'
import { acquireDaemonLock } from './config/daemonLock'
import { writeServerInfo } from './config/extensionInstall'
import { bridgePaths, type BridgePaths } from './config/paths'
import { prepareConfigDir } from './config/setup'
import { startListening } from './daemonLifecycle'
import { daemonServices } from './daemonServices'
import type { EngineChoice } from './http/createEngine'
import { createDaemonFront } from './http/daemonFront'
import type { ExtensionSightings } from './http/proof'
import type { EngineName } from './http/engine'
import { attachLogFile, log } from './log'
import { startInspector } from './machineInspector'
import { McpEndpoint } from './mcp/mcpEndpoint'
import { createPluginHost, reloadRoute, requestReload } from './plugins'
import { startDevWatcher } from './plugins/devMode'
import { LOOPBACK_HOST } from './protocol/constants'
import { createSiteRegistry } from './sites/siteRegistry'
import { createDaemonWorkflows } from './workflows/daemonWorkflows'
import { BROWSER_TOOLS, type BrowserTool } from './tools'
import { createDaemonLink } from './ws/daemonLink'
import { ExtensionSockets } from './ws/extensionSockets'

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
  /** False when a dev supervisor holds the config folder's lock for this daemon (src/devSupervisor.ts). */
  holdsLock?: boolean
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
  // Config: the directory and its files, the limits; config.json is the configStore actor's (below).
  const paths = bridgePaths(options.configDir)
  const files = prepareConfigDir(paths)
  const { mode } = options
  // One daemon per config folder, before anything else touches its files: a second one stops here,
  // naming the first. `bridge stop` asks the holder to stop: the same clean stop as SIGTERM.
  const lock =
    options.holdsLock === false
      ? undefined
      : await acquireDaemonLock(paths, { mode, onStopRequested: () => process.kill(process.pid, 'SIGTERM') })
  attachLogFile(paths.serverLog)
  const startedAt = Date.now()
  const limits = limitsFromEnv()
  const browserTools = options.browserTools ?? (() => BROWSER_TOOLS)
  const config = () => configStore.get()
  const skipPermissions = () => options.skipPermissionsEnv || config().skipPermissions === true

  // Stores the effects work on: sites' own tools, plugins, one tool index, audit, sockets, credentials.
  const siteRegistry = createSiteRegistry({ sites: () => config().sites, skipPermissions })
  const pluginHost = createPluginHost({
    configDir: paths.dir,
    env: process.env,
    readConfig: () => (credentials.reread(), configStore.reload()),
    onReloaded: () => (devWatcher?.refresh(), workflows.reread(), announcements.pluginsReloaded()),
  })
  const workflows = createDaemonWorkflows({
    configDir: paths.dir,
    audit: { record: (entry) => audit.record(entry) },
    onChanged: () => announcements.configChanged(),
    uploads: createBrowserToolContext(() => config().uploadFolders ?? []),
    // A run's tool step is a call like any other, as the run's client: its scope, permission and guard.
    callTool: ({ name, input, client, session }) =>
      callTool(
        { system: root, catalog, audit },
        { name, input, context: { id: randomUUID(), client, session, signal: new AbortController().signal } },
      ),
  })
  const catalog = createDaemonCatalog({
    pluginHost,
    browserTools,
    config,
    skipPermissions,
    siteRegistry,
    workflows: () => workflows.tools(),
  })
  const audit = createDaemonAudit({
    dir: paths.dir,
    limits,
    onRecorded: ({ tool, success }) =>
      void link.port.notify('audit.recorded', { tool, success }, { soon: true }),
  })
  const sockets = new ExtensionSockets({ syncFull: () => syncFullOf(catalog), limits })
  const credentials = createCredentials({
    paths,
    secret: files.secret,
    onSecretRotated: () => sockets.secretRotated(),
    onClientRemoved: (name) => sessions.closeClient(name),
    onClientScopeChanged: () => sessions.toolsChanged(),
    onClientApprovalsOff: (name) => sessions.approvalsOff(name),
  })
  const stores = { siteRegistry, pluginHost, catalog, audit, sockets, credentials }

  // The call path: client scopes, the data-flow guard, the effects of every call's actor.
  const scopes = createClientScopeGate({ clients: () => credentials.clients(), catalog })
  // Fingerprints are taken in a worker thread of their own (dist/guardWorker.js, beside this bundle).
  const flowGuard = createFlowGuard({ workerFile: new URL('./guardWorker.js', import.meta.url) })
  const guard = createGuardStep({
    guard: flowGuard,
    settings: () => config().flowGuard,
    saveSettings: async (mutate) => {
      await configStore.update((current) => ({ ...current, flowGuard: mutate(current.flowGuard ?? {}) }))
    },
    originsOf: (client) => credentials.clients().find((c) => c.name === client),
  })
  const toolInvocation = provideToolInvocation({
    catalog,
    portOf: (system) => sockets.portOf(system),
    audit,
    limits,
    updateConfig: (mutate) => configStore.update(mutate),
    onConfigChanged: () => announcements.configChanged(),
    scopes,
    guard,
  })

  // The root actor: configStore, reload, extensionConnection; spawned pluginTab and toolInvocation.
  const inspector = options.inspectUrl === undefined ? undefined : await startInspector(options.inspectUrl)
  const root = createActor(
    bridgeSystemMachine.provide({
      actors: {
        reload: reloadMachine.provide(pluginHost.reloadEffects),
        configStore: configStoreMachine.provide(configStoreEffects(paths.configFile)),
        extensionConnection: extensionConnectionMachine.provide(sockets.connectionEffects),
        toolInvocation,
      },
    }),
    { input: { config: files.config }, ...(inspector ? { inspect: inspector.inspect } : {}) },
  )
  root.subscribe({ error: (error: unknown) => logger.error('the actor system failed:', error) })
  root.start()
  const configStore = configStoreIn(root.system)

  // Who talks to the system: MCP clients on /mcp, the extension on /ws; then the first plugin load.
  const sessions = new McpEndpoint({
    root,
    stores,
    scopes,
    limits,
    handedOut: (id, result) => guard.handedOut(id, result),
    callStarted: () => flowGuard.callStarted(),
    afterCall: ({ name, input, context }, outcome) =>
      workflows.afterCall({
        id: context.id,
        name,
        input,
        client: context.client,
        plugin: catalog.pluginOf(name),
        outcome,
      }),
  })
  const extension = createDaemonLink({
    root,
    stores,
    configStore,
    configDir: paths.dir,
    workflows: {
      store: workflows.store,
      onChanged: () => (workflows.reread(), announcements.configChanged()),
    },
    sessions,
    workflowToolStep: (params) => workflows.toolStep(params),
  })
  const { link, announcements } = extension
  const devWatcher = await startDevWatcher(mode, { paths, config, system: root.system })
  await requestReload(root.system, 'startup')

  // The front: routes behind the security gate, on one HTTP engine; refused once draining starts.
  const engine = () => front.engine.name
  const extensionSightings: ExtensionSightings = {}
  const front = createDaemonFront({
    services: daemonServices({
      mode,
      startedAt,
      engine,
      stores,
      extension,
      extensionSightings,
      sessions,
      devWatcher,
      root,
    }),
    routes: [reloadRoute(root.system)],
    credentials,
    engine: options.engine,
    accepting: () => root.getSnapshot().matches({ live: 'running' }),
    extensionSightings,
  })

  // Start and stop (./daemonLifecycle): the parts end in this order, then the engine and the root.
  const release = async () => {
    extension.siteAnnouncements.stop()
    await devWatcher?.close()
    credentials.close()
    await sessions.closeAll()
    sockets.stop()
    await audit.close()
    await flowGuard.close()
    await lock?.release()
  }
  const { port, stop } = await startListening({ port: options.port, root, front, inspector, release })
  const url = `http://${LOOPBACK_HOST}:${port}`
  lock?.setPort(port)
  writeServerInfo(paths.extensionDir, port)
  logger.info(`bridge listening on ${url} (engine ${engine()}, ${mode} mode, config ${paths.dir})`)
  return { port, url, engine: engine(), paths, configStore, system: root, stop }
}
