/**
 * `bridge doctor [--port <n>]`: a checklist of what bridge needs (runtime, browser, files, secret,
 * daemon, extension, MCP clients, plugins). ✓ pass, ! warning, ✗ error; exit code 1 on any error.
 */
import type { CAC } from 'cac'
import { readClients, type ClientEntry } from '../../src/config/clients'
import { readDaemonLock, type LockState } from '../../src/config/daemonLock'
import { bridgePaths, configDirFromEnv } from '../../src/config/paths'
import { BRIDGE_VERSION } from '../../src/protocol/constants'
import { baseUrl, fetchHealth } from '../../src/http/daemonClient'
import { fail, say } from '../shared/output'
import { resolvePort } from '../../src/config/port'
import { findChromiumBrowser } from './doctor/browsers'
import { failOf, formatCheck, pass, warnOf, type CheckResult } from './doctor/check'
import {
  checkAuditLog,
  checkConfig,
  checkExtensionFiles,
  checkLocalPlugins,
  checkRuntime,
  checkSecret,
} from './doctor/checks'
import { checkMcpClients, knownMcpClients } from './doctor/mcpClients'
import { checkClientTools } from './doctor/clientTools'
import { checkCommandOnPath } from './doctor/commandOnPath'
import { thisCommand } from '../shared/selfCommand'
import { extensionCheck } from './doctor/extensionLink'

const DOCTOR_HEALTH_TIMEOUT_MS = 3_000

export function registerDoctor(cli: CAC): void {
  cli
    .command('doctor', 'Check the setup: runtime, browser, files, daemon, extension, MCP clients, plugins')
    .action((flags: { port?: unknown }) => doctor(flags))
}

async function doctor(flags: { port?: unknown }): Promise<void> {
  const paths = bridgePaths(configDirFromEnv())
  const results: CheckResult[] = [checkRuntime(), checkCommandOnPath(thisCommand())]
  const browser = findChromiumBrowser()
  results.push(
    browser
      ? pass(`Chromium-based browser: ${browser}`)
      : warnOf(
          'no Chromium-based browser found',
          'install Chrome, Chromium, Edge or Brave; the extension needs one',
        ),
  )
  const config = checkConfig(paths)
  const secret = checkSecret(paths)
  results.push(config.result, secret.result)
  let port: number
  try {
    port = resolvePort({ flag: flags.port, configPort: config.config?.port })
  } catch (error) {
    return fail(error instanceof Error ? error.message : String(error))
  }
  // Without --port, the daemon that holds this folder's lock is the one meant, on whatever port.
  const lock = await readDaemonLock(paths)
  if (flags.port === undefined && lock.held && lock.info && lock.info.port > 0) port = lock.info.port

  // fetchHealth sends the secret only after the server on the port proved it knows it.
  const health = await fetchHealth(port, secret.secret, DOCTOR_HEALTH_TIMEOUT_MS)
  if (!health.ok)
    results.push(
      health.reason === 'not_running'
        ? notAnswering({ port, portGiven: flags.port !== undefined, lock, configDir: paths.dir })
        : failOf(health.message),
    )
  else {
    const { version } = health.health
    results.push(pass(`bridge ${version} answers on ${baseUrl(port)}`))
    if (version !== BRIDGE_VERSION)
      results.push(
        warnOf(
          `the running daemon is ${version}, this CLI is ${BRIDGE_VERSION}`,
          'restart it to use this version',
        ),
      )
    results.push(extensionCheck(health.health, paths.extensionDir))
    // An older daemon does not report it.
    results.push(...checkAuditLog(health.health.auditLog, paths.dir))
  }
  results.push(...checkExtensionFiles(paths))
  const clients = readClientsQuietly(paths.clientsFile)
  results.push(...checkMcpClients(port, secret.secret, knownMcpClients(), clients))
  if (health.ok && secret.secret !== null)
    results.push(...(await checkClientTools(port, secret.secret, clients)))
  results.push(...checkLocalPlugins(config.config, paths.dir))
  if (health.ok) {
    const npm = health.health.pluginDetails.filter((plugin) => plugin.source === 'npm')
    for (const plugin of npm)
      results.push(pass(`package plugin ${plugin.name} loaded (${plugin.toolCount} tools)`))
    for (const failed of health.health.failedPlugins)
      results.push(failOf(`plugin at ${failed.path} failed to load: ${failed.error}`))
    if (npm.length === 0 && health.health.failedPlugins.length === 0)
      results.push(pass('no package plugin failed to load'))
  } else results.push(warnOf('package plugins not checked: the daemon is not running'))

  for (const result of results) for (const line of formatCheck(result)) say(line)
  const count = (mark: CheckResult['mark']) => results.filter((r) => r.mark === mark).length
  say()
  say(`${count('pass')} passed, ${count('warn')} warning(s), ${count('fail')} error(s)`)
  if (count('fail') > 0) process.exitCode = 1
}

/**
 * Nothing answers on the port: bridge is not running, or the daemon of this folder runs on another port
 * (the lock's holder says which), or it holds the folder but does not answer.
 */
export function notAnswering(at: {
  port: number
  portGiven: boolean
  lock: LockState
  configDir: string
}): CheckResult {
  const url = baseUrl(at.port)
  const info = at.lock.held ? at.lock.info : undefined
  if (info && info.port > 0 && info.port !== at.port)
    return failOf(
      `nothing answers on ${url}: the daemon of ${at.configDir} runs on port ${info.port} (pid ${info.pid})`,
      `check that one: \`bridge doctor --port ${info.port}\``,
    )
  if (at.lock.held)
    return failOf(
      `the daemon of ${at.configDir}${info ? ` (pid ${info.pid})` : ''} holds its folder but does not answer on ${url}`,
      'restart it: `bridge stop`, then `bridge start`',
    )
  return failOf(
    `bridge is not running: nothing answers on ${url} and no daemon holds ${at.configDir}`,
    `start it: \`bridge start${at.portGiven ? ` --port ${at.port}` : ''}\``,
  )
}

/** The named clients for the MCP check; a broken clients.json only loses the client names. */
function readClientsQuietly(file: string): ClientEntry[] {
  try {
    return readClients(file)
  } catch {
    return []
  }
}
