/**
 * Dev mode's watcher, loaded only in dev mode (chokidar comes with it): local plugin builds and
 * config.json edits ask the reload actor for a reload.
 */
import type { SystemLookup } from '../../machines/systemActors'
import { resolveLocalPluginPath } from '../config/localPlugins'
import type { BridgePaths } from '../config/paths'
import { log } from '../log'
import type { DevWatcher } from './devWatcher'
import { requestReload } from './reloadRequests'

const logger = log.withTag('daemon')

export interface DevModeParts {
  /** config.json, watched; the config directory, which local plugin entries are relative to. */
  paths: Pick<BridgePaths, 'configFile' | 'dir'>
  /** config.json now: the folders of its `localPlugins` are watched (read again on every refresh). */
  config(): { readonly localPlugins: readonly string[] }
  /** The actor system whose reload actor is asked. */
  system: SystemLookup
}

export async function startDevWatcher(
  mode: 'dev' | 'production',
  parts: DevModeParts,
): Promise<DevWatcher | undefined> {
  if (mode !== 'dev') return undefined
  const { createDevWatcher } = await import('./devWatcher')
  const { paths } = parts
  return createDevWatcher({
    configFile: paths.configFile,
    localDirs: () => parts.config().localPlugins.map((entry) => resolveLocalPluginPath(entry, paths.dir)),
    onChange: (why) => {
      logger.info(`dev: ${why}; reloading plugins`)
      void requestReload(parts.system, 'watch')
    },
  })
}
