/**
 * `bridge plugin list [--json] [-v]`: online, the plugins the running daemon has loaded (with tab
 * state); offline, what discovery would load from config.json and the global npm packages.
 */
import { existsSync } from 'node:fs'
import { neutralizeText } from '../../../src/protocol/untrustedText'
import { readConfigFile } from '../../../src/config/configFile'
import { configDirFromEnv } from '../../../src/config/paths'
import { log } from '../../../src/log'
import { discoverPlugins } from '../../../src/plugins/discover'
import type { FailedPlugin } from '../../../src/protocol/manifest'
import { pluginToolName } from '../../../src/protocol/toolNames'
import { daemonFetch } from '../../../src/http/daemonClient'
import { runningDaemonTarget } from '../../shared/daemonTarget'

export interface ListFlags {
  json?: boolean
  port?: string | number
  verbose?: boolean
}

export interface ListedPlugin {
  name: string
  displayName: string
  tabState?: string
  toolCount: number
  tools: string[]
  source: string
  sdkVersion: string | null
  version?: string
}

export interface PluginList {
  online: boolean
  plugins: ListedPlugin[]
  failedPlugins: FailedPlugin[]
}

export async function listPlugins(
  flags: ListFlags,
  env: NodeJS.ProcessEnv = process.env,
): Promise<PluginList> {
  const configDir = configDirFromEnv(env)
  const { paths, port, secret } = await runningDaemonTarget(flags.port, {
    configDir,
    env,
    brokenConfig: 'ignore',
  })
  const online = await fromDaemon(port, secret)
  if (online) return online
  const config = existsSync(paths.configFile) ? readConfigFile(paths.configFile) : { localPlugins: [] }
  const snapshot = await discoverPlugins({ configDir, config, env, syncAdapters: false })
  return {
    online: false,
    plugins: snapshot.plugins.map((p) => ({
      name: p.name,
      displayName: p.displayName,
      toolCount: p.tools.length,
      tools: p.tools.map((t) => pluginToolName(p.name, t.name)),
      source: p.source,
      sdkVersion: p.sdkVersion,
      version: p.version,
    })),
    failedPlugins: snapshot.failedPlugins,
  }
}

async function fromDaemon(port: number, secret: string | null): Promise<PluginList | undefined> {
  try {
    const result = await daemonFetch(port, secret, '/health', { timeoutMs: 3_000 })
    if (!result.ok) return undefined
    const response = result.response
    const body = (await response.json()) as { pluginDetails?: ListedPlugin[]; failedPlugins?: FailedPlugin[] }
    if (!response.ok || !Array.isArray(body.pluginDetails)) return undefined
    return {
      online: true,
      plugins: body.pluginDetails.map((p) => ({
        name: p.name,
        displayName: p.displayName,
        tabState: p.tabState,
        toolCount: p.toolCount,
        tools: p.tools,
        source: p.source,
        sdkVersion: p.sdkVersion,
      })),
      failedPlugins: body.failedPlugins ?? [],
    }
  } catch {
    return undefined
  }
}

export function formatPluginList(list: PluginList, verbose: boolean): string {
  const lines = [
    list.online
      ? 'Plugins loaded by the running daemon:'
      : 'No daemon running; plugins that discovery finds:',
  ]
  if (list.plugins.length === 0) lines.push('  (none) create one with: bridge plugin create <name>')
  for (const p of list.plugins) {
    const state = p.tabState ? `  tab ${p.tabState}` : ''
    lines.push(
      `  ${neutralizeText(p.name, 64).padEnd(20)} ${neutralizeText(p.displayName, 100)}  ${p.toolCount} tool${p.toolCount === 1 ? '' : 's'}  ${p.source}  sdk ${p.sdkVersion ?? 'unknown'}${state}`,
    )
    if (verbose) for (const tool of p.tools) lines.push(`      ${neutralizeText(tool, 200)}`)
  }
  if (list.failedPlugins.length) {
    lines.push('Failed to load:')
    for (const f of list.failedPlugins)
      lines.push(`  ${neutralizeText(f.path, 500)}: ${neutralizeText(f.error)}`)
  }
  return lines.join('\n')
}

export async function runList(flags: ListFlags): Promise<void> {
  const list = await listPlugins(flags)
  if (flags.json) process.stdout.write(`${JSON.stringify(list, null, 2)}\n`)
  else log.log(formatPluginList(list, flags.verbose === true))
}
