/**
 * Several agents against one real daemon, the real extension in Chromium and a fixture site: each a
 * named MCP client made with `bridge client add` (its scope flags as the user would type them) and
 * connected with the real MCP SDK client. Built-in tools are set to `auto` unless told otherwise.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { launchBrowser, type BrowserHarness } from '../../helpers/browser'
import { startDaemon, tempConfigDir, type RunningDaemon } from '../../helpers/daemon'
import { connectMcp, textOf, type McpConnection } from '../../helpers/mcpClient'
import { runCli, type CliResult } from '../../integration/cli/runCli'
import { writePlugin, type PluginFixture } from '../../integration/toolcall/fixture'
import { startFixtureSite, type FixtureSite } from '../../e2e/builtins/fixtureSite'

export interface Agent {
  name: string
  mcp: McpConnection
  call(tool: string, args?: Record<string, unknown>): Promise<CallToolResult>
  /** The call's JSON output; throws with the tool error's text when it failed. */
  json<T>(tool: string, args?: Record<string, unknown>): Promise<T>
}

export interface AgentsInBrowser {
  daemon: RunningDaemon
  site: FixtureSite
  browser: BrowserHarness
  cli(args: string[]): Promise<CliResult>
  /** `bridge client add <name> <flags>`, then an MCP session as that client. */
  agent(name: string, flags?: string[]): Promise<Agent>
  close(): Promise<void>
}

export async function startAgentsInBrowser(
  options: {
    permissions?: Record<string, unknown>
    plugins?: PluginFixture[]
    env?: Record<string, string>
  } = {},
): Promise<AgentsInBrowser> {
  const configDir = tempConfigDir()
  const pluginDirs = (options.plugins ?? []).map((plugin) => writePlugin(configDir, plugin))
  writeFileSync(
    join(configDir, 'config.json'),
    JSON.stringify({
      localPlugins: pluginDirs,
      port: 9515,
      permissions: options.permissions ?? { browser: { permission: 'auto', groups: ['all'] } },
    }),
    { mode: 0o600 },
  )
  mkdirSync(join(configDir, 'extension'), { recursive: true })
  const daemon = await startDaemon({ configDir, ...(options.env ? { env: options.env } : {}) })
  const site = await startFixtureSite()
  const browser = await launchBrowser({ port: daemon.port, secret: daemon.secret })
  for (let i = 0; i < 300; i++) {
    const health = (await (await daemon.fetch('/health')).json()) as { extensionConnected: boolean }
    if (health.extensionConnected) break
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  const agents: Agent[] = []
  const cli = (args: string[]) => runCli([...args, '--port', String(daemon.port)], configDir)
  return {
    daemon,
    site,
    browser,
    cli,
    async agent(name, flags = []) {
      const added = await cli(['client', 'add', name, '--json', ...flags])
      if (added.code !== 0) throw new Error(`bridge client add ${name}: ${added.stderr}`)
      const { token } = JSON.parse(added.stdout) as { token: string }
      const mcp = await connectMcp({ url: daemon.url, secret: token }, name)
      const call = async (tool: string, args: Record<string, unknown> = {}) =>
        (await mcp.client.callTool({ name: tool, arguments: args })) as CallToolResult
      const agent: Agent = {
        name,
        mcp,
        call,
        async json<T>(tool: string, args: Record<string, unknown> = {}) {
          const result = await call(tool, args)
          if (result.isError) throw new Error(`${tool}: ${textOf(result)}`)
          return JSON.parse(textOf(result)) as T
        },
      }
      agents.push(agent)
      return agent
    },
    async close() {
      for (const agent of agents) await agent.mcp.close().catch(() => undefined)
      await browser.close()
      await daemon.stop()
      await site.close()
      rmSync(configDir, { recursive: true, force: true })
    },
  }
}
