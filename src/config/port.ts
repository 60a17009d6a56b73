/**
 * The port a `bridge` command uses: `--port`, then BRIDGE_PORT, then `port` in config.json, then 9515.
 * `bridge start` also honours PORT (the server's own variable) after BRIDGE_PORT, and accepts 0 (a
 * free port, for tests and scripts).
 */
import { DEFAULT_PORT } from '../protocol/constants'

export interface PortSources {
  flag?: unknown
  env?: NodeJS.ProcessEnv
  configPort?: number
  /** `start` only: accept PORT and port 0. */
  forServer?: boolean
}

export function resolvePort({ flag, env = process.env, configPort, forServer = false }: PortSources): number {
  const candidates = forServer ? [flag, env.BRIDGE_PORT, env.PORT] : [flag, env.BRIDGE_PORT]
  for (const candidate of candidates) {
    if (candidate === undefined || candidate === '' || candidate === true) continue
    return parsePort(candidate, forServer ? 0 : 1)
  }
  return configPort ?? DEFAULT_PORT
}

/** One port given as a flag or a variable: an integer from `min` to 65535, or a clear error. */
export function parsePort(value: unknown, min = 1): number {
  const text = typeof value === 'number' || typeof value === 'string' ? String(value) : '?'
  const port = Number(text)
  if (!Number.isInteger(port) || port < min || port > 65535)
    throw new Error(`invalid port "${text}" (expected ${min}-65535)`)
  return port
}
