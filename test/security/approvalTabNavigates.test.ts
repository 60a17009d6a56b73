/**
 * The attack: an approval is raised for a tab, and before the user clicks Allow that tab navigates to
 * another origin that the plugin also matches (another account of the site, another host under a
 * broad URL pattern). The user approved a call on what the card showed; the old extension ran it in
 * whatever document the tab held by then. With the real daemon, the real extension in Chromium and
 * the demo site signed in as two users on two origins, the approved call must not run on the new one.
 */
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { DemoSite } from '../../examples/demo-site/server.mjs'
import type { BrowserHarness } from '../helpers/browser'
import type { LiveBridge } from '../helpers/liveBridge'
import { BROWSER_START_TIMEOUT_MS } from '../helpers/timing'
import { textOf, type McpConnection } from '../helpers/mcpClient'
import { startNotesOnAsk } from '../helpers/notesOnAsk'
import { startAgentsInBrowser, type Agent, type AgentsInBrowser } from './support/agentsInBrowser'

describe('an approval raised for a tab that then navigates to another origin', () => {
  let bridge: LiveBridge<DemoSite>
  let browser: BrowserHarness
  let site: DemoSite
  let mcp: McpConnection
  let panel: Page
  let alice: Page

  beforeAll(async () => {
    ;({ bridge, mcp, panel } = await startNotesOnAsk())
    ;({ browser, site } = bridge)
    alice = await browser.newPage(`${site.url}/login?user=alice`)
  }, BROWSER_START_TIMEOUT_MS)
  afterAll(() => bridge?.close())

  const readyTabs = () => bridge.readyTabs('notes')
  const approval = () => panel.getByTestId('approval')

  it('does not run the approved call on the new origin: it fails, and nothing is written there', async () => {
    await expect.poll(readyTabs, { timeout: 20_000 }).toBe(1)
    const call = mcp.client.callTool({ name: 'notes_create_note', arguments: { title: 'for alice only' } })
    await expect.poll(() => approval().count(), { timeout: 10_000 }).toBe(1)
    expect(await approval().getByTestId('approval-tab-url').textContent()).toContain('127.0.0.1')
    // The tab moves to the other origin, signed in as bob, and is ready there before the user clicks.
    const other = site.url.replace('127.0.0.1', 'localhost')
    await alice.goto(`${other}/login?user=bob`)
    await expect
      .poll(
        async () =>
          (await bridge.pluginDetail('notes'))?.tabs.filter((t) => t.ready && t.url.includes('localhost'))
            .length,
        { timeout: 20_000 },
      )
      .toBe(1)
    await approval().getByTestId('approve-once').click()
    const result = await call
    expect(result.isError).toBe(true)
    expect(textOf(result)).toMatch(/^\[tab_closed\] /)
    expect(textOf(result)).toContain(`now shows ${new URL(other).origin}`)
    const bobNotes = await alice.evaluate(
      async () => ((await (await fetch('/api/notes')).json()) as { notes: unknown[] }).notes,
    )
    expect(bobNotes).toEqual([])
  })
})

describe('an approval of a built-in tool for a tab that then navigates to another origin', () => {
  let env: AgentsInBrowser
  let agent: Agent

  beforeAll(async () => {
    env = await startAgentsInBrowser({
      permissions: {
        browser: { permission: 'auto', groups: ['all'], tools: { browser_storage_set: 'ask' } },
      },
    })
    agent = await env.agent('builtin-agent')
  }, 120_000)
  afterAll(async () => {
    await env?.close()
  })

  it('shows the tab in the card, and runs nothing once the tab shows another origin', async () => {
    const tabId = (await agent.json<{ tabId: number }>('browser_open_tab', { url: env.site.url('/') })).tabId
    const panel = await env.browser.openSidePanel()
    const call = agent.call('browser_storage_set', { tabId, key: 'approved-for', value: '127.0.0.1 only' })
    const card = panel.getByTestId('approval')
    await card.waitFor({ timeout: 20_000 })
    const siteOrigin = new URL(env.site.url('/')).origin
    expect(await card.getByTestId('approval-tab-url').textContent()).toContain(siteOrigin)
    // Before the user clicks, the agent's tab goes to another site.
    const other = siteOrigin.replace('127.0.0.1', 'localhost')
    expect((await agent.call('browser_navigate', { tabId, url: `${other}/` })).isError).toBeFalsy()
    await card.getByTestId('approve-once').click()
    const result = await call
    expect(result.isError).toBe(true)
    expect(textOf(result)).toContain(
      `now shows ${other}, not ${siteOrigin} as when the call was approved: nothing ran`,
    )
    const page = await env.browser.newPage(`${other}/`)
    expect(await page.evaluate(() => localStorage.getItem('approved-for'))).toBeNull()
    await page.close()
    await panel.close()
  })

  it('runs an approved call whose tab stayed on its origin', async () => {
    const tabId = (await agent.json<{ tabId: number }>('browser_open_tab', { url: env.site.url('/') })).tabId
    const panel = await env.browser.openSidePanel()
    const call = agent.call('browser_storage_set', { tabId, key: 'k', value: 'v' })
    const card = panel.getByTestId('approval')
    await card.waitFor({ timeout: 20_000 })
    await card.getByTestId('approve-once').click()
    expect((await call).isError).toBeFalsy()
    await panel.close()
  })
})
