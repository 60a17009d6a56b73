// The first hour in real Chromium with the real extension: every tool starts off, so the side panel
// says so and names the switch; its "Turn on core browser tools" turns them on (ask), and an MCP
// client then lists them.
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startDemoSite } from '../../../examples/demo-site/server.mjs'
import { CORE_BROWSER_TOOLS } from '../../../src/tools'
import { startLiveBridge, type LiveBridge } from '../../helpers/liveBridge'

describe('the side panel with no tool on', () => {
  let bridge: LiveBridge<Awaited<ReturnType<typeof startDemoSite>>>
  let panel: Page

  beforeAll(async () => {
    bridge = await startLiveBridge({ site: () => startDemoSite({ port: 0 }) })
    panel = await bridge.browser.openSidePanel()
  })
  afterAll(async () => {
    await bridge?.close()
  })

  it('says that agents see no tool yet, and its switch turns on the core browser tools', async () => {
    const mcp = await bridge.connectAs('agent')
    expect((await mcp.client.listTools()).tools).toEqual([])
    const hint = panel.getByTestId('no-tools-hint')
    await expect.poll(() => hint.isVisible(), { timeout: 15_000 }).toBe(true)
    expect(await hint.textContent()).toContain('No tool is on yet, so agents see none.')
    const changed = mcp.nextListChanged(15_000)
    await panel.getByTestId('turn-on-core-tools').click()
    await changed
    const listed = (await mcp.client.listTools()).tools.map((t) => t.name)
    expect(new Set(listed)).toEqual(CORE_BROWSER_TOOLS)
    for (const tool of (await mcp.client.listTools()).tools)
      expect(tool.description).toMatch(/^\[asks for approval\] /)
    await expect.poll(() => hint.isVisible(), { timeout: 15_000 }).toBe(false)
  })
})
