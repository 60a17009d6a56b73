/**
 * Where a CLI command finds the running daemon and what it shows it: the port (`--port`, then
 * BRIDGE_PORT, then `port` in config.json, then 9515) and the secret from auth.json. Every command that
 * talks to a daemon (`bridge status`, `stop`, `audit`, `mcp`, `config`, `plugin list`, and
 * `bridge-plugin build`'s reload) starts here; `bridge start` and `bridge doctor` read config.json
 * themselves (they create or check it) and pass its port to `resolvePort`.
 *
 * @example
 *   const { port, secret } = daemonTarget(flags.port)
 *   const res = await daemonFetch(port, secret, '/health')
 */
import { existsSync } from 'node:fs'
import { readSecret } from '../../src/config/auth'
import { readConfigFile } from '../../src/config/configFile'
import { readDaemonLock } from '../../src/config/daemonLock'
import { bridgePaths, configDirFromEnv, type BridgePaths } from '../../src/config/paths'
import { resolvePort } from '../../src/config/port'

export interface TargetOptions {
  /** Default: BRIDGE_CONFIG_DIR, else ~/.bridge. */
  configDir?: string
  env?: NodeJS.ProcessEnv
  /**
   * A config.json that cannot be read: 'fail' (the default) throws its error; 'ignore' falls back to
   * BRIDGE_PORT or 9515, for commands that report a broken config.json elsewhere or not at all.
   */
  brokenConfig?: 'fail' | 'ignore'
}

export interface DaemonPort {
  paths: BridgePaths
  port: number
}

export interface DaemonTarget extends DaemonPort {
  /** null when auth.json does not exist yet. */
  secret: string | null
}

/** The secret, or null when auth.json does not exist yet. Throws on a broken file. */
export function cliSecret(paths: BridgePaths): string | null {
  return existsSync(paths.authFile) ? readSecret(paths.authFile) : null
}

/** The port alone, for a command that does not send the secret. Throws on an invalid port flag. */
export function daemonPort(flag: unknown, options: TargetOptions = {}): DaemonPort {
  const env = options.env ?? process.env
  const paths = bridgePaths(options.configDir ?? configDirFromEnv(env))
  let configPort: number | undefined
  if (existsSync(paths.configFile)) {
    try {
      configPort = readConfigFile(paths.configFile).port
    } catch (error) {
      if (options.brokenConfig !== 'ignore') throw error
    }
  }
  return { paths, port: resolvePort({ flag, env, ...(configPort === undefined ? {} : { configPort }) }) }
}

/** Port and secret. Throws on an invalid port flag or a broken auth.json. */
export function daemonTarget(flag: unknown, options: TargetOptions = {}): DaemonTarget {
  const target = daemonPort(flag, options)
  return { ...target, secret: cliSecret(target.paths) }
}

/**
 * `daemonTarget`, where the daemon holding the config folder's lock (src/config/daemonLock.ts) says
 * which port it listens on: without `--port`, that daemon is the one meant, whatever port it was
 * started on.
 */
export async function runningDaemonTarget(flag: unknown, options: TargetOptions = {}): Promise<DaemonTarget> {
  const target = daemonTarget(flag, options)
  if (flag !== undefined) return target
  const lock = await readDaemonLock(target.paths)
  return lock.held && lock.info && lock.info.port > 0 ? { ...target, port: lock.info.port } : target
}
