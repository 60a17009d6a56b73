/**
 * Test setup for the tool call path: a config directory written before the daemon starts (config.json
 * with permissions and local plugins), and hand-written local plugin builds.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startDaemon, tempConfigDir, type Engine, type RunningDaemon } from '../../helpers/daemon'

export interface FixtureConfig {
  permissions?: Record<
    string,
    { permission?: string; tools?: Record<string, string>; reviewedVersion?: string }
  >
  skipPermissions?: boolean
  /** config.json `flowGuard` (the data-flow guard's settings). */
  flowGuard?: Record<string, unknown>
  /** Local plugins to write into the config dir and list in localPlugins. */
  plugins?: PluginFixture[]
}

export interface PluginFixture {
  name: string
  version?: string
  tools: {
    name: string
    inputSchema?: Record<string, unknown>
    outputSchema?: Record<string, unknown>
    description?: string
    annotations?: Record<string, boolean>
  }[]
}

/** Short limits so timeouts happen within a test; the product documents these knobs. */
export const SHORT_LIMITS = {
  BRIDGE_TOOL_TIMEOUT_MS: '1000',
  BRIDGE_TOOL_MAX_DURATION_MS: '4000',
  BRIDGE_APPROVAL_TIMEOUT_MS: '1500',
  BRIDGE_APPROVAL_PROGRESS_INTERVAL_MS: '300',
}

export function writePlugin(root: string, plugin: PluginFixture): string {
  const dir = join(root, `plugin-${plugin.name}`)
  mkdirSync(join(dir, 'dist'), { recursive: true })
  const version = plugin.version ?? '1.0.0'
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({
      name: `bridge-plugin-${plugin.name}`,
      version,
      bridge: { displayName: plugin.name, urlPatterns: ['http://127.0.0.1/*'] },
    }),
  )
  writeFileSync(
    join(dir, 'dist', 'tools.json'),
    JSON.stringify({
      name: plugin.name,
      version,
      sdkVersion: '1.0.0',
      displayName: `${plugin.name} plugin`,
      urlPatterns: ['http://127.0.0.1/*'],
      tools: plugin.tools.map((tool) => ({
        name: tool.name,
        displayName: tool.name,
        description: tool.description ?? `The ${tool.name} tool`,
        inputSchema: tool.inputSchema ?? { type: 'object', properties: {}, additionalProperties: false },
        ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
        ...(tool.annotations ? { annotations: tool.annotations } : {}),
      })),
    }),
  )
  writeFileSync(join(dir, 'dist', 'adapter.iife.js'), `(() => { /* ${plugin.name} test adapter */ })()\n`)
  return dir
}

export interface Fixture {
  daemon: RunningDaemon
  configDir: string
  stop(): Promise<void>
}

/** Writes config.json (and plugin folders), starts the daemon on `engine`, cleans everything up on stop. */
export async function startFixture(
  engine: Engine,
  config: FixtureConfig = {},
  env: Record<string, string | undefined> = {},
): Promise<Fixture> {
  const configDir = tempConfigDir()
  const localPlugins = (config.plugins ?? []).map((plugin) => writePlugin(configDir, plugin))
  writeFileSync(
    join(configDir, 'config.json'),
    JSON.stringify({
      localPlugins,
      permissions: config.permissions ?? {},
      port: 9515,
      ...(config.skipPermissions === undefined ? {} : { skipPermissions: config.skipPermissions }),
      ...(config.flowGuard === undefined ? {} : { flowGuard: config.flowGuard }),
    }),
    { mode: 0o600 },
  )
  const daemon = await startDaemon({ engine, configDir, env: { ...SHORT_LIMITS, ...env } })
  return {
    daemon,
    configDir,
    async stop() {
      await daemon.stop()
      rmSync(configDir, { recursive: true, force: true })
    },
  }
}

export interface AuditEntryBody {
  timestamp: string
  tool: string
  plugin: string
  client?: string
  success: boolean
  durationMs: number
  approvalMs?: number
  error?: { code: string; message: string; category?: string }
  flowGuard?: { sources: string[]; sinks: string[]; kinds: string[]; decision: string }
}

/** The daemon's audit entries, newest first. */
export async function auditEntries(daemon: RunningDaemon, query = 'limit=500'): Promise<AuditEntryBody[]> {
  const res = await daemon.fetch(`/audit?${query}`)
  return (await res.json()) as AuditEntryBody[]
}
