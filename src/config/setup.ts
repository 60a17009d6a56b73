/**
 * First-run and every-run preparation of the config directory: directories 0700, config.json and
 * extension/auth.json 0600 (created with defaults and a fresh secret when missing). Broken files
 * are reported with their path and problem, never replaced; a directory or file that another user
 * owns or could write is refused (./privateFiles).
 */
import { ensurePrivateDir, removeStaleTempFiles } from './atomicWrite'
import { ensureSecret } from './auth'
import { ensureClientsFile, type ClientEntry } from './clients'
import { configBackupPath, ensureConfigFile } from './configFile'
import type { BridgePaths } from './paths'
import { assertPrivateConfigDir } from './privateFiles'
import type { Config } from './schema'

export interface PreparedFiles {
  config: Config
  secret: string
  /** True when this call created config.json (first run). */
  createdConfig: boolean
  createdSecret: boolean
  /** The `default` MCP client when this call created clients.json (first run), else null. */
  createdClient: ClientEntry | null
}

export function prepareConfigDir(paths: BridgePaths): PreparedFiles {
  // Before anything is created or read: a directory someone else can write is refused, not repaired.
  assertPrivateConfigDir(paths)
  ensurePrivateDir(paths.dir)
  ensurePrivateDir(paths.extensionDir)
  removeStaleTempFiles(paths.configFile)
  removeStaleTempFiles(configBackupPath(paths.configFile))
  removeStaleTempFiles(paths.authFile)
  removeStaleTempFiles(paths.clientsFile)
  const { config, created: createdConfig } = ensureConfigFile(paths.configFile)
  const { secret, created: createdSecret } = ensureSecret(paths.authFile)
  const { created: createdClient } = ensureClientsFile(paths.clientsFile)
  return { config, secret, createdConfig, createdSecret, createdClient }
}
