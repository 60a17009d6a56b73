/**
 * The daemon's plugin side: owns the current registry snapshot, runs discovery as the `reload`
 * actor's effect, answers `POST /reload`, and reports the plugin fields of /health. The daemon
 * creates one host, provides `host.discover` to the reload machine, then calls `attach(actor)`.
 */
import type { ActorRefFrom } from 'xstate'
import type {
  DiscoveryOutcome,
  ReloadFinished,
  ReloadReason,
  reloadMachine,
} from '../../machines/reloadMachine'
import type { PluginDetail } from '../http/health'
import { createRateLimiter } from '../http/rateLimit'
import { errorResponse, jsonResponse } from '../http/responses'
import type { Route } from '../http/route'
import { log } from '../log'
import { ADMIN_RATE_LIMIT_PER_MIN } from '../protocol/constants'
import type { DiscoveryError, FailedPlugin, TabInfo, TabStateName } from '../protocol/manifest'
import { discoverPlugins } from './discover'
import { createPluginLoadCache } from './loadCache'
import { emptySnapshot, pluginToolNames } from './registry'
import type { PluginRegistrySnapshot } from './types'

const logger = log.withTag('plugins')

export interface PluginHostDeps {
  configDir: string
  env: NodeJS.ProcessEnv
  /**
   * Re-reads what a reload refreshes (config.json, ...) and returns the `localPlugins` to scan. A throw
   * keeps the previous plugin set and lands in discoveryErrors.
   */
  readConfig(): Promise<{ localPlugins: readonly string[] }>
  /** Called after every run that changed the snapshot (sync.full, tools/list_changed, tab actors). */
  onReloaded(snapshot: PluginRegistrySnapshot): void
}

export interface PluginHealth {
  plugins: number
  pluginDetails: PluginDetail[]
  failedPlugins: FailedPlugin[]
  pluginToolCount: number
  reloadCount: number
  lastReloadTimestamp: number
  lastReloadDurationMs: number
  discoveryErrors: DiscoveryError[]
}

export interface PluginHost {
  /** The reload machine's `discover` effect. Never rejects. */
  discover(input: { reason: ReloadReason; run: number }): Promise<DiscoveryOutcome>
  attach(actor: ActorRefFrom<typeof reloadMachine>): void
  /** Requests a reload and resolves when a run that started after this request has finished. */
  reload(reason?: ReloadReason): Promise<ReloadFinished>
  snapshot(): PluginRegistrySnapshot
  health(
    tab: (plugin: string) => { tabState: TabStateName; tabs: TabInfo[] },
    logBufferSize?: (plugin: string) => number,
  ): PluginHealth
  /** `POST /reload`: authenticated, 10 per minute, `{ ok, plugins, durationMs }`. */
  route(): Route
}

export function createPluginHost(deps: PluginHostDeps): PluginHost {
  let current = emptySnapshot()
  // Reloads re-read only the plugins whose build files changed.
  const cache = { plugins: createPluginLoadCache(), adapterCopies: new Map<string, string>() }
  let actor: ActorRefFrom<typeof reloadMachine> | undefined

  const discover: PluginHost['discover'] = async ({ reason, run }) => {
    const startedAt = Date.now()
    try {
      let config: { localPlugins: readonly string[] }
      const configErrors: DiscoveryError[] = []
      try {
        config = await deps.readConfig()
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error)
        logger.warn(`reload: could not re-read the configuration: ${message}`)
        configErrors.push({ source: 'config', message: `config.json was not re-read: ${message}` })
        config = { localPlugins: current.plugins.filter((p) => p.source === 'local').map((p) => p.path) }
      }
      const next = await discoverPlugins({ configDir: deps.configDir, config, env: deps.env, cache })
      next.discoveryErrors.unshift(...configErrors)
      current = next
      const durationMs = Date.now() - startedAt
      logger.info(
        `${reason === 'startup' ? 'discovery' : `reload #${run}`}: ${next.plugins.length} plugin(s) loaded${next.plugins.length ? ` (${next.plugins.map((p) => `${p.name}@${p.version} ${p.source}`).join(', ')})` : ''}, ${next.failedPlugins.length} failed, ${durationMs} ms`,
      )
      for (const failed of next.failedPlugins)
        logger.warn(`plugin at ${failed.path} failed to load: ${failed.error}`)
      for (const error of next.discoveryErrors) logger.warn(`discovery (${error.source}): ${error.message}`)
      try {
        deps.onReloaded(next)
      } catch (error) {
        logger.error('announcing the new plugin set failed:', error)
      }
      return { ok: configErrors.length === 0, plugins: next.plugins.length, startedAt, durationMs }
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error)
      logger.error(`plugin discovery failed: ${message}`)
      return {
        ok: false,
        plugins: current.plugins.length,
        startedAt,
        durationMs: Date.now() - startedAt,
        error: message,
      }
    }
  }

  const reload: PluginHost['reload'] = (reason = 'request') => {
    const ref = actor
    if (!ref) return Promise.reject(new Error('plugin host is not attached to the reload actor'))
    // Served by the first run numbered after every run started before this request.
    const target = ref.getSnapshot().context.runsStarted + 1
    return new Promise((resolve) => {
      const subscription = ref.on('reload.finished', (event) => {
        if (event.run < target) return
        subscription.unsubscribe()
        resolve(event)
      })
      ref.send({ type: 'reload.request', reason })
    })
  }

  return {
    discover,
    attach: (ref) => {
      actor = ref
    },
    reload,
    snapshot: () => current,
    health: (tab, logBufferSize = () => 0) => {
      const context = actor?.getSnapshot().context
      return {
        plugins: current.plugins.length,
        pluginDetails: current.plugins.map((p) => {
          const { tabState, tabs } = tab(p.name)
          return {
            name: p.name,
            displayName: p.displayName,
            version: p.version,
            packageName: p.packageName,
            adapterHash: p.adapterHash,
            toolCount: p.tools.length,
            tools: pluginToolNames(p),
            tabState,
            tabs,
            ...(p.iconSvg !== undefined ? { iconSvg: p.iconSvg } : {}),
            source: p.source,
            ...(p.source === 'local' ? { path: p.path } : {}),
            sdkVersion: p.sdkVersion,
            logBufferSize: logBufferSize(p.name),
          }
        }),
        failedPlugins: current.failedPlugins,
        pluginToolCount: current.plugins.reduce((n, p) => n + p.tools.length, 0),
        reloadCount: context?.reloadCount ?? 0,
        lastReloadTimestamp: context?.lastReloadTimestamp ?? 0,
        lastReloadDurationMs: context?.lastReloadDurationMs ?? 0,
        discoveryErrors: current.discoveryErrors,
      }
    },
    route: () => ({
      path: '/reload',
      auth: 'required',
      rateLimit: createRateLimiter({ limit: ADMIN_RATE_LIMIT_PER_MIN }),
      methods: {
        POST: async () => {
          if (!actor) return errorResponse('service_unavailable', 'the daemon is still starting')
          const result = await reload('request')
          return jsonResponse({ ok: result.ok, plugins: result.plugins, durationMs: result.durationMs })
        },
      },
    }),
  }
}
