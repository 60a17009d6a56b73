/**
 * Several agents against one real daemon, the real extension in Chromium and a fixture site (a live
 * bridge, test/helpers/liveBridge.ts): each a named MCP client made with `bridge client add` (its
 * scope flags as the user would type them) and connected with the real MCP SDK client. Built-in tools
 * are set to `auto` unless told otherwise. `close()` stops everything, the agents' sessions first.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import type { BrowserHarness } from '../../helpers/browser'
import type { RunningDaemon } from '../../helpers/daemon'
import { startLiveBridge } from '../../helpers/liveBridge'
import { textOf, type McpConnection } from '../../helpers/mcpClient'
import type { CliResult } from '../../integration/cli/runCli'
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
  const bridge = await startLiveBridge({
    via: 'server',
    site: startFixtureSite,
    config: ({ configDir }) => ({
      localPlugins: (options.plugins ?? []).map((plugin) => writePlugin(configDir, plugin)),
      permissions: options.permissions ?? { browser: { permission: 'auto', groups: ['all'] } },
    }),
    ...(options.env ? { env: options.env } : {}),
  })
  return {
    daemon: bridge.daemon,
    site: bridge.site,
    browser: bridge.browser,
    cli: (args) => bridge.cli(args),
    async agent(name, flags = []) {
      const mcp = await bridge.connectAs(name, flags)
      const call = async (tool: string, args: Record<string, unknown> = {}) =>
        (await mcp.client.callTool({ name: tool, arguments: args })) as CallToolResult
      return {
        name,
        mcp,
        call,
        async json<T>(tool: string, args: Record<string, unknown> = {}) {
          const result = await call(tool, args)
          if (result.isError) throw new Error(`${tool}: ${textOf(result)}`)
          return JSON.parse(textOf(result)) as T
        },
      }
    },
    close: () => bridge.close(),
  }
}
