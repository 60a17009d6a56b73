/**
 * First build of a plugin folder: add it to `localPlugins` in config.json so the daemon discovers it.
 * The file is written atomically (mode 0600); a config.json that does not parse is left alone and the
 * error says so.
 */
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { ensurePrivateDir } from '../config/atomicWrite'
import { updateConfigFile } from '../config/configFile'
import { resolveLocalPluginPath } from '../config/localPlugins'
import { bridgePaths } from '../config/paths'
import { PluginBuildError } from './errors'

export interface Registration {
  configFile: string
  /** False when the folder was already listed. */
  added: boolean
}

export function registerLocalPlugin(pluginDir: string, configDir: string): Registration {
  const paths = bridgePaths(configDir)
  const dir = resolve(pluginDir)
  try {
    if (!existsSync(paths.dir)) ensurePrivateDir(paths.dir)
    // Already listed: the file is left as it was, so "written" means "added".
    const { written } = updateConfigFile(paths.configFile, (config) =>
      config.localPlugins.some((entry) => resolveLocalPluginPath(entry, paths.dir) === dir)
        ? config
        : { ...config, localPlugins: [...config.localPlugins, dir] },
    )
    return { configFile: paths.configFile, added: written }
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error)
    throw new PluginBuildError(`could not register ${dir} in ${paths.configFile}: ${reason}`, {
      cause: error,
    })
  }
}
