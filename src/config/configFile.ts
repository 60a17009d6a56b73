/**
 * Reading and writing `config.json`. A file that does not parse or does not match the schema is never
 * overwritten: the caller gets a BridgeError naming the file, what is wrong and where (line and
 * column), and the daemon refuses to start until the user fixes it. Before every write the file as it
 * was goes to `config.json.bak` (atomically, mode 0600), so the version before the last change can
 * always be put back; the error of a broken file says how.
 */
import { existsSync, readFileSync } from 'node:fs'
import { BridgeError, BridgeErrorCode } from '../errors'
import { jsonProblem } from '../jsonProblem'
import { atomicWriteFile, enforceMode } from './atomicWrite'
import { withFileLock, withFileLockAsync } from './fileLock'
import { checkPort } from './port'
import { Config, ConfigFile, defaultConfig } from './schema'
import { validate } from '../validation'

/** Reads and validates config.json; missing keys take their defaults. Throws BridgeError. */
export function readConfigFile(path: string): Config {
  const text = readFileSync(path, 'utf8')
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (error) {
    throw new BridgeError(
      BridgeErrorCode.configUnparseable,
      `${path} is not valid JSON: ${jsonProblem(text, error)}. ${howToRecover(path)}`,
      { cause: error },
    )
  }
  const onDisk = validate(ConfigFile, parsed, 'the top level')
  if (!onDisk.ok)
    throw new BridgeError(BridgeErrorCode.configInvalid, `${path}: ${onDisk.message}. ${howToRecover(path)}`)
  const port = portProblem(onDisk.value.port)
  if (port) throw new BridgeError(BridgeErrorCode.configInvalid, `${path}: ${port}. ${howToRecover(path)}`)
  return { ...defaultConfig(), ...onDisk.value }
}

/** config.json's `port`, by the one port parser (src/config/port.ts): why it is not a port, if it is not. */
function portProblem(port: number | undefined): string | undefined {
  if (port === undefined) return undefined
  const checked = checkPort(port)
  return checked.ok ? undefined : `port: ${checked.message}`
}

/** Where the copy of config.json taken before each write is. */
export const configBackupPath = (path: string): string => `${path}.bak`

function howToRecover(path: string): string {
  const backup = configBackupPath(path)
  const restore = existsSync(backup)
    ? ` ${backup} holds the version before bridge's last change: \`cp ${backup} ${path}\` puts it back.`
    : ''
  return `Fix or delete it; bridge will not overwrite it.${restore}`
}

/**
 * Validates and atomically writes config.json (mode 0600), after copying the file as it is to
 * config.json.bak (atomically, mode 0600).
 */
export function writeConfigFile(path: string, config: Config): void {
  const checked = validate(Config, config, 'the top level')
  const problem = checked.ok ? portProblem(config.port) : checked.message
  if (problem) throw new BridgeError(BridgeErrorCode.configInvalid, `refusing to write ${path}: ${problem}`)
  backupConfigFile(path)
  atomicWriteFile(path, `${JSON.stringify(config, null, 2)}\n`)
}

/** Copies config.json, as it is, to config.json.bak (atomically, mode 0600); nothing when it is absent. */
export function backupConfigFile(path: string): void {
  let current: Buffer
  try {
    current = readFileSync(path)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return
    throw error
  }
  atomicWriteFile(configBackupPath(path), current)
}

/** Loads config.json, creating it with defaults on first run. Enforces mode 0600 on an existing file. */
export function ensureConfigFile(path: string): { config: Config; created: boolean } {
  if (!existsSync(path)) {
    const config = defaultConfig()
    writeConfigFile(path, config)
    return { config, created: true }
  }
  enforceMode(path)
  return { config: readConfigFile(path), created: false }
}

export interface ConfigUpdate {
  next: Config
  /** False when the change left the file as it was (nothing written). */
  written: boolean
}

/**
 * Read, change and write config.json as one step under `config.json.lock`, so that the daemon, `bridge
 * config set` and `bridge-plugin build` never lose each other's edits. It starts from the file on
 * disk; a missing file starts from the defaults. A broken file throws and is left as it is.
 */
export function updateConfigFile(
  path: string,
  mutate: (current: Config) => Config,
  lockTimeoutMs?: number,
): ConfigUpdate {
  return withFileLock(path, () => readModifyWrite(path, mutate), lockTimeoutMs)
}

/** `updateConfigFile` for the daemon: it waits for the lock without blocking its event loop. */
export function updateConfigFileAsync(
  path: string,
  mutate: (current: Config) => Config,
  lockTimeoutMs?: number,
): Promise<ConfigUpdate> {
  return withFileLockAsync(path, () => readModifyWrite(path, mutate), lockTimeoutMs)
}

function readModifyWrite(path: string, mutate: (current: Config) => Config): ConfigUpdate {
  const exists = existsSync(path)
  const previous = exists ? readConfigFile(path) : defaultConfig()
  const next = mutate(structuredClone(previous))
  const written = !exists || JSON.stringify(next) !== JSON.stringify(previous)
  if (written) writeConfigFile(path, next)
  return { next, written }
}
