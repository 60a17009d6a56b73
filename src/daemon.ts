/**
 * The composition root: the only place real effects are wired into the machines. Reading it top to
 * bottom tells how the daemon fits together: files -> actor system -> routes -> front -> engine.
 */
import { createActor, fromPromise, type Actor, type ActorRefFrom } from 'xstate'
import { bridgeSystemMachine } from '../machines/bridgeSystemMachine'
import { configStoreMachine } from '../machines/configStoreMachine'
import { extensionConnectionMachine } from '../machines/extensionConnectionMachine'
import { reloadMachine } from '../machines/reloadMachine'
import { createConfigStore, persistConfigChange, type ConfigStore } from './config/configStore'
import { writeServerInfo } from './config/extensionInstall'
import { bridgePaths, type BridgePaths } from './config/paths'
import { resolvePermission } from './config/permissions'
import { readSecret } from './config/auth'
import { createClientRegistry } from './config/clientRegistry'
import { prepareConfigDir } from './config/setup'
import { createEngine, type EngineChoice } from './http/createEngine'
import type { EngineName } from './http/engine'
import { createFront } from './http/front'
import type { HealthPayload } from './http/health'
import { proofRoute } from './http/proof'
import { createRoutes } from './http/routes'
import { attachLogFile, detachLogFile, log, registerSecret } from './log'
import { createToolPath } from './mcp/toolPath'
import { createFolderOpen } from './ws/folderOpen'
import { createRegistryMethods } from './ws/registryMethods'
import { pluginStates } from './ws/catalog'
import { createPluginHost } from './plugins'
import { createDevWatcher, type DevWatcher } from './plugins/devWatcher'
import { resolveLocalPluginPath } from './config/localPlugins'
import { limitsFromEnv } from './mcp/limits'
import { startInspector } from './inspect'
import { BROWSER_TOOLS, type BrowserTool } from './tools'
import {
  BROWSER_PLUGIN,
  BRIDGE_VERSION,
  HTTP_MAX_BODY_BYTES,
  LOOPBACK_HOST,
  SDK_VERSION,
  STATE_SCHEMA_VERSION,
  WS_MAX_PAYLOAD_BYTES,
} from './protocol/constants'

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
      toolPath.secretRotated()
    } catch (error) {
      logger.warn(
        `reload: kept the current secret: ${error instanceof Error ? error.message : String(error)}`,
      )
    }
  }

  // Named MCP clients (clients.json): their tokens open /mcp only. Re-read at each reload and on change.
  const onClientRemoved = (name: string): void => {
    logger.info(`MCP client "${name}" no longer has access`)
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
      toolPath.pluginsReloaded()
    },
  })
  const browserTools = options.browserTools ?? (() => BROWSER_TOOLS)
  const skipPermissions = () => options.skipPermissionsEnv || configStore.get().skipPermissions === true
  // The tool call path: /ws, /mcp, approvals and the audit log. It runs its actors in the root system below.
  const catalog = {
    plugins: () => pluginHost.snapshot().plugins,
    failedPlugins: () => pluginHost.snapshot().failedPlugins,
    browserTools,
    permissions: () => configStore.get().permissions,
    skipPermissions,
  }
  const toolPath = createToolPath({
    auditDir: paths.dir,
    catalog,
    updateConfig: (mutate) => configStore.update(mutate),
    limits: limitsFromEnv(),
    devMode: options.mode === 'dev',
    extraMethods: {
      'folder.open': createFolderOpen({
        allowed: () => [
          paths.dir,
          ...pluginHost
            .snapshot()
            .plugins.filter((p) => p.source === 'local')
            .map((p) => p.path),
        ],
      }),
      ...createRegistryMethods({
        env: process.env,
        configDir: paths.dir,
        config: () => configStore.get(),
        updateConfig: (mutate) => configStore.update(mutate),
        reload: () => pluginHost.reload('request'),
        pluginState: (name) => pluginStates(catalog).find((p) => p.name === name),
      }),
    },
  })

  const inspector = options.inspectUrl === undefined ? undefined : await startInspector(options.inspectUrl)
  // The root actor system: configStore, reload and extensionConnection with their real effects; the
  // tool path spawns pluginTab, mcpSession and toolInvocation children in it.
  const system = createActor(
    bridgeSystemMachine.provide({
      actors: {
        reload: reloadMachine.provide({
          actors: { discover: fromPromise(({ input }) => pluginHost.discover(input)) },
        }),
        configStore: configStoreMachine.provide({
          actors: { persist: fromPromise(persistConfigChange(paths.configFile)) },
        }),
        extensionConnection: extensionConnectionMachine.provide(toolPath.extensionConnection),
      },
    }),
    { input: { config: files.config }, ...(inspector ? { inspect: inspector.inspect } : {}) },
  )
  system.subscribe({ error: (error: unknown) => logger.error('the actor system failed:', error) })
  system.start()
  const configStore = createConfigStore(
    system.system.get('configStore') as ActorRefFrom<typeof configStoreMachine>,
  )
  toolPath.attach(system)
  pluginHost.attach(system.system.get('reload') as ActorRefFrom<typeof reloadMachine>)
  // Dev mode: local plugin builds and config.json edits trigger a reload.
  const devWatcher: DevWatcher | undefined =
    options.mode === 'dev'
      ? createDevWatcher({
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
  const getHealth = (): HealthPayload => {
    const browserToolNames = browserTools().map((tool) => tool.name)
    const plugins = pluginHost.health(
      (name) => toolPath.tabState(name),
      (name) => toolPath.logBufferSize(name),
    )
    const { permissions } = configStore.get()
    const isOff = (tool: string) =>
      resolvePermission({ permissions, plugin: BROWSER_PLUGIN, tool, skipPermissions: skipPermissions() }) ===
      'off'
    return {
      status: 'ok',
      version: BRIDGE_VERSION,
      sdkVersion: SDK_VERSION,
      mode: options.mode,
      httpEngine: engine.name,
      ...toolPath.health(),
      ...plugins,
      toolCount: browserToolNames.length + plugins.pluginToolCount,
      browserToolCount: browserToolNames.length,
      browserToolNames,
      disabledBrowserTools: browserToolNames.filter(isOff),
      skipPermissions: skipPermissions(),
      uptime: Math.floor((Date.now() - startedAt) / 1000),
      stateSchemaVersion: STATE_SCHEMA_VERSION,
      ...(devWatcher ? { fileWatcher: devWatcher.health() } : {}),
    }
  }

  const routes = createRoutes({
    getHealth,
    wsUrl: () => `ws://${LOOPBACK_HOST}:${port}/ws`,
    openExtensionSocket: (socket) => toolPath.openExtensionSocket(socket),
  }).concat(toolPath.routes, [pluginHost.route(), proofRoute(() => files.secret)])
  const front = createFront({
    routes,
    port: () => port,
    secret: () => files.secret,
    clients: () => clients.current(),
    maxBodyBytes: HTTP_MAX_BODY_BYTES,
  })
  const engine = createEngine(options.engine, {
    handler: front.handle,
    upgrade: front.upgrade,
    limits: {
      maxBodyBytes: HTTP_MAX_BODY_BYTES,
      maxPayloadBytes: WS_MAX_PAYLOAD_BYTES,
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      maxConnections: 256,
    },
  })
  try {
    port = (await engine.start({ host: LOOPBACK_HOST, port: options.port })).port
  } catch (error) {
    // Could not listen (port in use): release everything already started so the caller can exit.
    await devWatcher?.close()
    await toolPath.stop()
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
      await devWatcher?.close()
      clients.close()
      await toolPath.stop()
      await engine.stop()
      system.send({ type: 'system.stop' })
      system.stop()
      inspector?.stop()
      logger.info('bridge stopped')
      detachLogFile()
    },
  }
}

/**
 * Stops the daemon gracefully on SIGTERM or SIGINT, then exits 0 (1 if stopping failed). Call it
 * before `createDaemon` and hand the daemon over with `attach`: a signal that arrives while the daemon
 * is still starting (or just after it printed its address) is then held until it can stop cleanly,
 * never left to the default action that would kill the process mid-write.
 */
export function stopOnSignals(): { attach(daemon: Daemon): void } {
  let daemon: Daemon | undefined
  let requested: string | undefined
  let stopping = false
  const stop = () => {
    if (stopping || !daemon || !requested) return
    stopping = true
    logger.info(`${requested} received, shutting down`)
    daemon.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error('shutdown failed:', error)
        process.exit(1)
      },
    )
  }
  const onSignal = (signal: string) => {
    if (requested) {
      // A second Ctrl-C: the user does not want to wait for the clean shutdown.
      logger.warn(`${signal} again: exiting without waiting for the shutdown to finish`)
      process.exit(1)
    }
    requested = signal
    stop()
  }
  process.on('SIGTERM', () => onSignal('SIGTERM'))
  process.on('SIGINT', () => onSignal('SIGINT'))
  return {
    attach(started) {
      daemon = started
      stop()
    },
  }
}
