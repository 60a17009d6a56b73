/**
 * The port a developer command talks to: `--port`, then BRIDGE_PORT, then `port` in config.json, then 9515.
 */
import { existsSync } from 'node:fs'
import { readConfigFile } from '../config/configFile'
import { bridgePaths } from '../config/paths'
import { resolvePort } from '../config/port'

export function cliPort(flag: unknown, configDir: string, env: NodeJS.ProcessEnv = process.env): number {
  const { configFile } = bridgePaths(configDir)
  let configPort: number | undefined
  if (existsSync(configFile)) {
    try {
      configPort = readConfigFile(configFile).port
    } catch {
      // A broken config.json is reported by the commands that need it; the port falls back.
    }
  }
  return resolvePort({ flag, env, ...(configPort === undefined ? {} : { configPort }) })
}
