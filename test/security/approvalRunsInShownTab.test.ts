/**
 * The attack: the user approves a call after reading which tab it runs in, and the call runs in
 * another one (a second account's tab, a tab brought to the front meanwhile). With the real daemon,
 * the real extension in Chromium and two signed-in tabs of the same site, the approval names the
 * client and the tab, the call runs in that tab even after the other one comes to the front, and a
 * call whose tab closes before the user approves fails with tab_closed instead of running elsewhere.
 */
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startDemoSite } from '../../examples/demo-site/server.mjs'
import { launchBrowser, type BrowserHarness } from '../helpers/browser'
import { startDaemon, tempConfigDir, type RunningDaemon } from '../helpers/daemon'
import { connectMcp, textOf, type McpConnection } from '../helpers/mcpClient'
import { buildFixturePlugin, type BuiltPlugin } from '../e2e/support/fixturePlugin'
import { runCli } from '../integration/cli/runCli'

describe('an approved call runs in the tab the approval showed', () => {
  let configDir: string
  let plugin: BuiltPlugin
  let daemon: RunningDaemon
  let browser: BrowserHarness
  let site: { url: string; close: () => Promise<void> }
  let mcp: McpConnection
  let panel: Page
  let alice: Page
  let bob: Page

  beforeAll(async () => {
    configDir = tempConfigDir()
    plugin = await buildFixturePlugin({ configDir })
    daemon = await startDaemon({ via: 'cli', configDir })
    site = await startDemoSite({ port: 0 })
    browser = await launchBrowser({ extensionDir: join(configDir, 'extension') })
    const added = await runCli(
      ['client', 'add', 'research-agent', '--json', '--port', String(daemon.port)],
      configDir,
    )
    expect(added.code).toBe(0)
    const token = (JSON.parse(added.stdout) as { token: string }).token
    mcp = await connectMcp({ url: daemon.url, secret: token }, 'research-agent')
    panel = await browser.openSidePanel()
    // Cookies are per host: the same site on localhost is signed in as another user, so the answer
    // says which tab ran the call.
    const set = await runCli(
      ['config', 'set', 'plugin-permission.notes', 'ask', '--port', String(daemon.port)],
      configDir,
    )
    expect(set.code).toBe(0)
    // A plugin with its tools on has its adapter registered; tabs opened from then on are isolated.
    await browser.waitForAdapter('notes')
    alice = await browser.newPage(`${site.url}/login?user=alice`)
    bob = await browser.newPage(`${site.url.replace('127.0.0.1', 'localhost')}/login?user=bob`)
  })
  afterAll(async () => {
    await mcp?.close()
    await browser?.close()
    await daemon?.stop()
    await site?.close()
    plugin?.remove()
    if (configDir) rmSync(configDir, { recursive: true, force: true })
  })

  const readyTabs = async (): Promise<number> => {
    const health = (await (await daemon.fetch('/health')).json()) as {
      pluginDetails: Array<{ name: string; tabs: Array<{ ready: boolean }> }>
    }
    return health.pluginDetails.find((p) => p.name === 'notes')?.tabs.filter((t) => t.ready).length ?? 0
  }
  const approval = () => panel.getByTestId('approval')

  it('shows the client and the tab, and runs there even when another tab comes to the front', async () => {
    await expect.poll(readyTabs, { timeout: 20_000 }).toBe(2)
    await bob.bringToFront()
    const call = mcp.client.callTool({ name: 'notes_whoami', arguments: {} })
    await expect.poll(() => approval().count(), { timeout: 10_000 }).toBe(1)
    expect(await approval().getByTestId('approval-client').textContent()).toBe('research-agent')
    expect(await approval().getByTestId('approval-tab-url').textContent()).toContain('localhost')
    // The user reads "bob's tab", then switches to alice's tab before clicking Allow.
    await alice.bringToFront()
    await approval().getByTestId('approve-once').click()
    const result = await call
    expect(result.isError).toBeFalsy()
    expect(JSON.parse(textOf(result))).toEqual({ user: 'bob' })
  })

  it('fails with tab_closed when the shown tab closes before the user approves, and runs nowhere else', async () => {
    await alice.bringToFront()
    await expect.poll(readyTabs, { timeout: 20_000 }).toBe(2)
    const call = mcp.client.callTool({ name: 'notes_create_note', arguments: { title: 'only in alice' } })
    await expect.poll(() => approval().count(), { timeout: 10_000 }).toBe(1)
    expect(await approval().getByTestId('approval-tab-url').textContent()).toContain('127.0.0.1')
    await alice.close()
    await expect.poll(readyTabs, { timeout: 20_000 }).toBe(1)
    await approval().getByTestId('approve-once').click()
    const result = await call
    expect(result.isError).toBe(true)
    expect(textOf(result)).toMatch(/^\[tab_closed\] /)
    const bobNotes = await bob.evaluate(
      async () => ((await (await fetch('/api/notes')).json()) as { notes: unknown[] }).notes,
    )
    expect(bobNotes).toEqual([])
  })
})
