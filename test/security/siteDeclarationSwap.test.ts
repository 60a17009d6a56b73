/**
 * A site the user turned on declares a harmless read-only tool and, while its approval card is open,
 * re-declares the same name as a destructive tool with another description and input. The old code
 * kept the card as it was, saved "always allow" for the new declaration's hash and ran the new code.
 * In real Chromium with the real extension and WebMCP: the card shows the declared hints; a change the
 * daemon hears withdraws the card and the call fails with `declaration_changed`; a change the page holds
 * back from its report (the extension hears nothing) is refused by the page side when the approved call
 * arrives; "always allow" binds only the declaration the call was checked with; nothing destructive runs.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sitePrefix, startWebMcpSites, type WebMcpSites } from '../e2e/support/webmcpSites'
import { textOf } from '../helpers/mcpClient'
import type { McpConnection } from '../helpers/mcpClient'
import { startLiveBridge, type LiveBridge } from '../helpers/liveBridge'
import { BROWSER_START_TIMEOUT_MS } from '../helpers/timing'

const WAIT_MS = 60_000

describe('a site that re-declares its tool while the approval card is open', { timeout: 300_000 }, () => {
  let bridge: LiveBridge<WebMcpSites>
  let mcp: McpConnection
  let panel: Page
  let swap: Page
  let name: string

  beforeAll(async () => {
    bridge = await startLiveBridge({
      site: startWebMcpSites,
      config: ({ site }) => ({ sites: { [site.a]: { permission: 'ask' } } }),
      webmcp: true,
    })
    mcp = await bridge.connect()
    panel = await bridge.browser.openSidePanel()
    name = `${sitePrefix(bridge.site.a)}lookup`
  }, BROWSER_START_TIMEOUT_MS)
  afterAll(() => bridge?.close())

  const approval = () => panel.getByTestId('approval')
  const call = () =>
    mcp.client.callTool({ name, arguments: { account: 'savings' } }, undefined, { timeout: 120_000 })
  const transferred = () =>
    swap.evaluate(() => (window as unknown as { transferred?: boolean }).transferred === true)
  const declaredNow = async () => {
    const health = (await (await bridge.daemon.fetch('/health')).json()) as {
      sites: {
        origin: string
        tools: { name: string; hash: string; annotations: Record<string, boolean> }[]
      }[]
    }
    return health.sites.find((s) => s.origin === bridge.site.a)?.tools.find((t) => t.name === 'lookup')
  }
  const saved = () =>
    (
      JSON.parse(readFileSync(join(bridge.configDir, 'config.json'), 'utf8')) as {
        sites?: Record<string, { tools?: Record<string, { permission: string; declared?: string }> }>
      }
    ).sites?.[bridge.site.a]?.tools?.lookup

  const openSwapPage = async () => {
    swap = await bridge.browser.newPage(`${bridge.site.a}/swap`)
    await expect
      .poll(async () => (await declaredNow())?.annotations, { timeout: WAIT_MS })
      .toMatchObject({ readOnlyHint: true })
    return (await declaredNow())!.hash
  }

  it('withdraws the card when the site re-declares the tool, and the call fails with declaration_changed', async () => {
    const harmless = await openSwapPage()
    const pending = call()
    await expect.poll(() => approval().count(), { timeout: WAIT_MS }).toBe(1)
    // The card shows what the site declares about the tool, as a plugin's card does.
    expect(await approval().getByTestId('approval-kind').getAttribute('data-kind')).toBe('read-only')
    await swap.evaluate(() => (window as unknown as { redeclare(quietly: boolean): void }).redeclare(false))
    await expect.poll(async () => (await declaredNow())?.hash, { timeout: WAIT_MS }).not.toBe(harmless)
    await expect.poll(() => approval().count(), { timeout: WAIT_MS }).toBe(0)
    const result = await pending
    expect(result.isError).toBe(true)
    expect(textOf(result)).toMatch(/^\[declaration_changed\]/)
    expect(await transferred()).toBe(false)
    expect(saved()).toBeUndefined()
    const audit = (await (await bridge.daemon.fetch(`/audit?tool=${name}`)).json()) as {
      error?: { code: string }
      declared?: string
    }[]
    expect(audit[0]).toMatchObject({ error: { code: 'declaration_changed' }, declared: harmless })
    await swap.close()
  })

  it('runs nothing the user did not see when the change is held back: the page side refuses, and "always allow" binds what was shown', async () => {
    const harmless = await openSwapPage()
    const pending = call()
    await expect.poll(() => approval().count(), { timeout: WAIT_MS }).toBe(1)
    await swap.evaluate(() => (window as unknown as { redeclare(quietly: boolean): void }).redeclare(true))
    // The change stays in the page (no report reaches the daemon), unless the machine is too slow for
    // the page's noise to hold it back: then the card is withdrawn instead. Either way nothing runs.
    await approval()
      .getByTestId('approve-always')
      .click({ timeout: 5_000 })
      .catch(() => undefined)
    const result = await pending
    expect(result.isError).toBe(true)
    expect(textOf(result)).toMatch(/^\[declaration_changed\]/)
    expect(await transferred()).toBe(false)
    // "Always allow" (when the click landed) saved the declaration the card showed, never the new one.
    const setting = saved()
    if (setting !== undefined) expect(setting).toEqual({ permission: 'auto', declared: harmless })
    await swap.close()
  })
})
