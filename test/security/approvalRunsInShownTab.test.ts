/**
 * The attack: the user approves a call after reading which tab it runs in, and the call runs in
 * another one (a second account's tab, a tab brought to the front meanwhile). With the real daemon,
 * the real extension in Chromium and two signed-in tabs of the same site, the approval names the
 * client and the tab, the call runs in that tab even after the other one comes to the front, and a
 * call whose tab closes before the user approves fails with tab_closed instead of running elsewhere.
 */
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { DemoSite } from '../../examples/demo-site/server.mjs'
import type { BrowserHarness } from '../helpers/browser'
import type { LiveBridge } from '../helpers/liveBridge'
import { BROWSER_START_TIMEOUT_MS } from '../helpers/timing'
import { textOf, type McpConnection } from '../helpers/mcpClient'
import { startNotesOnAsk } from '../helpers/notesOnAsk'

describe('an approved call runs in the tab the approval showed', () => {
  let bridge: LiveBridge<DemoSite>
  let browser: BrowserHarness
  let site: DemoSite
  let mcp: McpConnection
  let panel: Page
  let alice: Page
  let bob: Page

  beforeAll(async () => {
    ;({ bridge, mcp, panel } = await startNotesOnAsk())
    ;({ browser, site } = bridge)
    alice = await browser.newPage(`${site.url}/login?user=alice`)
    bob = await browser.newPage(`${site.url.replace('127.0.0.1', 'localhost')}/login?user=bob`)
  }, BROWSER_START_TIMEOUT_MS)
  afterAll(() => bridge?.close())

  const readyTabs = () => bridge.readyTabs('notes')
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
