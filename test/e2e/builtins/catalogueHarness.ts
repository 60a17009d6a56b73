// The whole chain for the built-in catalogue tests: the real MCP client -> the real daemon -> the real
// extension in Chromium, against the catalogue fixture site. One per test file.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { launchBrowser, type BrowserHarness } from '../../helpers/browser'
import { startDaemon, tempConfigDir, type RunningDaemon } from '../../helpers/daemon'
import { connectMcp, textOf, type McpConnection } from '../../helpers/mcpClient'
import { runCli } from '../../integration/cli/runCli'
import { startCatalogueSite, type CatalogueSite } from './catalogueSite'

export interface CatalogueHarness {
  daemon: RunningDaemon
  browser: BrowserHarness
  site: CatalogueSite
  mcp: McpConnection
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>
  /** The JSON an agent reads from a successful call; fails the test with the error text otherwise. */
  json<T = Record<string, unknown>>(name: string, args?: Record<string, unknown>): Promise<T>
  /** The text an agent reads from a successful call. */
  text(name: string, args?: Record<string, unknown>): Promise<string>
  /** The `[code] message` text of a failed call. */
  error(name: string, args?: Record<string, unknown>): Promise<string>
  /** Opens a tab at a fixture path and returns its id. */
  open(url: string): Promise<number>
  /** `bridge config set ...` against this daemon, as a user types it. */
  configSet(key: string, value: string): Promise<void>
  close(): Promise<void>
}

export async function startCatalogueHarness(): Promise<CatalogueHarness> {
  const configDir = tempConfigDir()
  writeFileSync(
    join(configDir, 'config.json'),
    JSON.stringify({
      localPlugins: [],
      port: 9515,
      permissions: { browser: { permission: 'auto', groups: ['all'] } },
    }),
    { mode: 0o600 },
  )
  mkdirSync(join(configDir, 'extension'), { recursive: true })
  const daemon = await startDaemon({ configDir })
  const site = await startCatalogueSite()
  const browser = await launchBrowser({ port: daemon.port, secret: daemon.secret })
  for (let i = 0; i < 150; i++) {
    const health = (await (await daemon.fetch('/health')).json()) as { extensionConnected: boolean }
    if (health.extensionConnected) break
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  const mcp = await connectMcp(daemon)
  const call = async (name: string, args: Record<string, unknown> = {}) =>
    (await mcp.client.callTool({ name, arguments: args })) as CallToolResult
  const text = async (name: string, args: Record<string, unknown> = {}) => {
    const result = await call(name, args)
    if (result.isError) throw new Error(`${name}: ${textOf(result)}`)
    return textOf(result)
  }
  const json = async <T>(name: string, args: Record<string, unknown> = {}) =>
    JSON.parse(await text(name, args)) as T
  return {
    daemon,
    browser,
    site,
    mcp,
    call,
    json,
    text,
    async error(name, args = {}) {
      const result = await call(name, args)
      if (!result.isError) throw new Error(`${name} succeeded: ${textOf(result).slice(0, 300)}`)
      return textOf(result)
    },
    async open(url) {
      return (await json<{ tabId: number }>('browser_open_tab', { url })).tabId
    },
    async configSet(key, value) {
      const result = await runCli(['config', 'set', key, value], configDir, {
        BRIDGE_PORT: String(daemon.port),
      })
      if (result.code !== 0) throw new Error(`bridge config set ${key} ${value}: ${result.stderr}`)
    },
    async close() {
      await mcp.close().catch(() => undefined)
      await browser.close().catch(() => undefined)
      await daemon.stop().catch(() => undefined)
      await site.close()
      rmSync(configDir, { recursive: true, force: true })
    },
  }
}
