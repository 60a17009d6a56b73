/**
 * The daemon's plugin side: owns the current registry snapshot, runs discovery as the `reload`
 * actor's effect, and reports the plugin fields of /health. Asking for a reload (and `POST /reload`)
 * goes to the actor itself: see ./reloadRequests.
 */
import { fromPromise } from 'xstate'
import type { DiscoveryOutcome, ReloadReason, reloadMachine } from '../../machines/reloadMachine'
import type { PluginDetail } from '../http/health'
import { log } from '../log'
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
  /** `discover` as the reload actor's effect, for `.provide()`. */
  readonly reloadEffects: Parameters<typeof reloadMachine.provide>[0]
  snapshot(): PluginRegistrySnapshot
  /** The folders of the local plugins loaded now. */
  localPluginPaths(): string[]
  health(
    tab: (plugin: string) => { tabState: TabStateName; tabs: TabInfo[] },
    logBufferSize: (plugin: string) => number,
    reloads: ReloadStats,
  ): PluginHealth
}

/** The reload actor's counters, as /health shows them. */
export type ReloadStats = Pick<PluginHealth, 'reloadCount' | 'lastReloadTimestamp' | 'lastReloadDurationMs'>

export function createPluginHost(deps: PluginHostDeps): PluginHost {
  let current = emptySnapshot()
  // Reloads re-read only the plugins whose build files changed.
  const cache = { plugins: createPluginLoadCache(), adapterCopies: new Map<string, string>() }
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

  return {
    discover,
    reloadEffects: { actors: { discover: fromPromise(({ input }) => discover(input)) } },
    snapshot: () => current,
    localPluginPaths: () => current.plugins.filter((p) => p.source === 'local').map((p) => p.path),
    health: (tab, logBufferSize, reloads) => {
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
        ...reloads,
        discoveryErrors: current.discoveryErrors,
      }
    },
  }
}
