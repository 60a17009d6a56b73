/** The checks of `bridge doctor` that read only local files and the runtime. */
import { existsSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import type { AuditDiskStatus } from '../../../src/audit/auditEntry'
import { readSecret } from '../../../src/config/auth'
import { readConfigFile } from '../../../src/config/configFile'
import { resolveLocalPluginPath } from '../../../src/config/localPlugins'
import type { BridgePaths } from '../../../src/config/paths'
import type { Config } from '../../../src/config/schema'
import { BRIDGE_VERSION } from '../../../src/protocol/constants'
import { errorText } from '../../shared/output'
import { failOf, pass, warnOf, type CheckResult } from './check'

const MIN_NODE = [20, 19] as const

export function checkRuntime(version: string = process.versions.node): CheckResult {
  const [major = 0, minor = 0] = version.split('.').map(Number)
  const ok = major > MIN_NODE[0] || (major === MIN_NODE[0] && minor >= MIN_NODE[1])
  return ok
    ? pass(`Node.js ${version}`)
    : failOf(`Node.js ${version} is too old`, `bridge needs Node.js ${MIN_NODE.join('.')} or newer`)
}

export function checkConfig(paths: BridgePaths): { result: CheckResult; config: Config | null } {
  if (!existsSync(paths.configFile))
    return { result: warnOf(`${paths.configFile} does not exist`, '`bridge start` creates it'), config: null }
  try {
    const config = readConfigFile(paths.configFile)
    return { result: pass(`config file ${paths.configFile}`), config }
  } catch (error) {
    return { result: failOf(errorText(error)), config: null }
  }
}

export function checkSecret(paths: BridgePaths): { result: CheckResult; secret: string | null } {
  if (!existsSync(paths.authFile))
    return { result: warnOf(`no secret yet (${paths.authFile})`, '`bridge start` creates it'), secret: null }
  try {
    const secret = readSecret(paths.authFile)
    const mode = statSync(paths.authFile).mode & 0o777
    if (mode & 0o077)
      return {
        result: warnOf(
          `${paths.authFile} has mode ${mode.toString(8)}`,
          `other users can read it: chmod 600 ${paths.authFile}`,
        ),
        secret,
      }
    return { result: pass(`auth secret is valid (${paths.authFile})`), secret }
  } catch (error) {
    return { result: failOf(errorText(error)), secret: null }
  }
}

/** manifest.json installed in `<config>/extension`, and its version against this CLI's. */
export function checkExtensionFiles(paths: BridgePaths): CheckResult[] {
  const manifest = join(paths.extensionDir, 'manifest.json')
  if (!existsSync(manifest))
    return [
      failOf(`extension files are not installed (${manifest} is missing)`, '`bridge start` installs them'),
    ]
  let version: unknown
  try {
    version = (JSON.parse(readFileSync(manifest, 'utf8')) as { version?: unknown }).version
  } catch {
    return [failOf(`${manifest} is not valid JSON`, '`bridge start` reinstalls the extension files')]
  }
  const installed = pass(`extension files installed in ${paths.extensionDir}`)
  if (version === BRIDGE_VERSION)
    return [installed, pass(`extension version ${BRIDGE_VERSION} matches the CLI`)]
  return [
    installed,
    warnOf(
      `extension version ${typeof version === 'string' ? version : '(none)'} differs from the CLI (${BRIDGE_VERSION})`,
      '`bridge start` updates the extension files; then reload the extension in chrome://extensions',
    ),
  ]
}

/** The daemon's audit.log: written, or refused by the disk (an error: calls run without a durable record). */
export function checkAuditLog(status: AuditDiskStatus | undefined, configDir: string): CheckResult[] {
  if (!status) return []
  if (status.ok) return [pass('audit.log is being written')]
  return [
    failOf(
      `audit.log cannot be written since ${status.since}: ${status.error}`,
      `free space or make ${configDir} writable; ${status.waitingForRetry} entries wait to be written, ` +
        `${status.dropped} were dropped`,
    ),
  ]
}

export function checkLocalPlugins(config: Config | null, configDir: string): CheckResult[] {
  if (!config || config.localPlugins.length === 0) return []
  return config.localPlugins.map((entry) => {
    const dir = resolveLocalPluginPath(entry, configDir)
    if (!existsSync(dir))
      return failOf(`local plugin ${dir} does not exist`, `bridge config set localPlugins.remove ${entry}`)
    const missing = ['dist/tools.json', 'dist/adapter.iife.js'].filter((file) => !existsSync(join(dir, file)))
    if (missing.length)
      return failOf(
        `local plugin ${dir} has no ${missing.join(' or ')}`,
        `build it: cd ${dir} && npx bridge-plugin build`,
      )
    return pass(`local plugin ${dir} is built`)
  })
}
