/**
 * `localPlugins` path rules: `./` and `../` are relative to the config directory, `~/` is the user's
 * home, absolute paths stay as they are. Anything else (a bare `foo/bar`) is treated like `./`.
 */
import { homedir } from 'node:os'
import { isAbsolute, join, resolve } from 'node:path'

export function resolveLocalPluginPath(entry: string, configDir: string, home: string = homedir()): string {
  if (entry === '~') return home
  if (entry.startsWith('~/')) return join(home, entry.slice(2))
  if (isAbsolute(entry)) return resolve(entry)
  return resolve(configDir, entry)
}
