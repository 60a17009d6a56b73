/**
 * `bridge status [--json]` (also plain `bridge`): what the running daemon reports on /health.
 */
import type { CAC } from 'cac'
import { escapedJson, neutralizeText } from '../../src/protocol/untrustedText'
import { bridgePaths, configDirFromEnv } from '../../src/config/paths'
import type { HealthPayload } from '../../src/http/health'
import { baseUrl, fetchHealth } from '../../src/http/daemonClient'
import { runningDaemonTarget } from '../shared/daemonTarget'
import { errorText, fail, say } from '../shared/output'
import { extensionStatusLine } from './doctor/extensionLink'

interface StatusFlags {
  port?: unknown
  json?: boolean
}

export function registerStatus(cli: CAC): void {
  cli
    .command('status', 'Show whether the daemon runs, its extension, clients and plugins')
    .option('--json', 'Print the raw /health JSON')
    .action((flags: StatusFlags) => status(flags))
}

export async function status(flags: StatusFlags): Promise<void> {
  const paths = bridgePaths(configDirFromEnv())
  let port: number
  let secret: string | null
  try {
    ;({ port, secret } = await runningDaemonTarget(flags.port, { configDir: paths.dir }))
  } catch (error) {
    return fail(errorText(error))
  }
  const result = await fetchHealth(port, secret)
  if (!result.ok) {
    if (result.reason === 'impostor' || result.reason === 'busy') return fail(result.message)
    const hint = result.reason === 'not_running' ? ' (start it with `bridge start`)' : ''
    return fail(`the daemon is not running: ${result.message}${hint}`)
  }
  // Tab URLs and titles and package messages come from pages and packages: format characters escaped.
  if (flags.json) return say(escapedJson(result.health, 2))
  for (const line of formatStatus(result.health, baseUrl(port), paths.extensionDir)) say(line)
}

export function formatStatus(health: HealthPayload, url: string, extensionDir: string): string[] {
  const lines = [
    `bridge ${health.version} running on ${url} (${health.mode} mode, ${health.httpEngine} engine)`,
    `  SDK version      ${health.sdkVersion}`,
    `  uptime           ${formatUptime(health.uptime)}`,
    `  extension        ${extensionStatusLine(health, extensionDir)}`,
    `  MCP clients      ${clientsLine(health)}`,
    `  plugins          ${health.plugins}`,
    `  tools            ${toolsLine(health)}`,
  ]
  if (health.skipPermissions) lines.push('  permissions      SKIPPED: ask-mode tools run without approval')
  for (const plugin of health.pluginDetails) {
    lines.push(
      `    ${neutralizeText(plugin.name, 64).padEnd(20)} ${plugin.tabState.padEnd(12)} ${String(plugin.toolCount).padStart(3)} tools  ${plugin.source}`,
    )
  }
  if (health.failedPlugins.length) {
    lines.push('  failed plugins')
    for (const failed of health.failedPlugins)
      lines.push(`    ${neutralizeText(failed.path, 500)}: ${neutralizeText(failed.error)}`)
  }
  return lines
}

/** `2 (3 sessions)`: clients are the agents, sessions their connections. */
function clientsLine(health: HealthPayload): string {
  const sessions = health.mcpSessions ?? health.mcpClients
  return sessions === health.mcpClients
    ? String(health.mcpClients)
    : `${health.mcpClients} (${sessions} session${sessions === 1 ? '' : 's'})`
}

/** `88: 5 from plugins, 83 built-in (80 of them off)`. */
function toolsLine(health: HealthPayload): string {
  const off = health.disabledBrowserTools.length
  const builtIn = health.browserToolCount
  const offText = off === 0 ? 'all on' : off === builtIn ? 'all off' : `${off} of them off`
  return `${health.toolCount}: ${health.pluginToolCount} from plugins, ${builtIn} built-in (${offText})`
}

export function formatUptime(seconds: number): string {
  const d = Math.floor(seconds / 86_400)
  const h = Math.floor((seconds % 86_400) / 3_600)
  const m = Math.floor((seconds % 3_600) / 60)
  const s = seconds % 60
  return [d && `${d}d`, (d || h) && `${h}h`, (d || h || m) && `${m}m`, `${s}s`].filter(Boolean).join(' ')
}
