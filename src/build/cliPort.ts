/**
 * The port the CLI talks to: `--port`, then BRIDGE_PORT, then `port` in config.json, then 9515.
 */
import { existsSync } from 'node:fs'
import { readConfigFile } from '../config/configFile'
import { bridgePaths } from '../config/paths'
import { DEFAULT_PORT } from '../protocol/constants'

export function cliPort(flag: unknown, configDir: string, env: NodeJS.ProcessEnv = process.env): number {
  for (const candidate of [flag, env.BRIDGE_PORT]) {
    if (candidate === undefined || candidate === '') continue
    const text = typeof candidate === 'number' || typeof candidate === 'string' ? String(candidate) : 'given'
    const port = Number(text)
    if (!Number.isInteger(port) || port < 1 || port > 65535)
      throw new Error(`port ${text} must be an integer 1-65535`)
    return port
  }
  const { configFile } = bridgePaths(configDir)
  if (existsSync(configFile)) {
    try {
      return readConfigFile(configFile).port
    } catch {
      // A broken config.json is reported by the commands that need it; the port falls back.
    }
  }
  return DEFAULT_PORT
}
