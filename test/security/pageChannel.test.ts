// Pages attack the plugin adapter channel, end to end: the real daemon (`bridge start`), Chromium with
// the extension it installed, the probe plugin built with `bridge-plugin build`, hostile pages whose
// own scripts attack first (test/security/support/hostileSite.ts), and an agent on the MCP SDK
// client. In every case the agent gets the real result or a refusal, never what the page forged, and
// no log or progress the page wrote. See docs/security.md, "Pages".
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { BrowserHarness } from '../helpers/browser'
import { startLiveBridge, type LiveBridge } from '../helpers/liveBridge'
import { textOf, type McpConnection } from '../helpers/mcpClient'
import { BROWSER_START_TIMEOUT_MS } from '../helpers/timing'
import { REAL_NOTE, startHostileSite, type HostileSite } from './support/hostileSite'

const PROBE_PLUGIN = join(import.meta.dirname, 'fixtures', 'probe-plugin')

describe('pages cannot subvert the adapter channel', () => {
  let bridge: LiveBridge<HostileSite>
  let browser: BrowserHarness
  let site: HostileSite
  let mcp: McpConnection
  let panel: Page
  const tabs: Page[] = []

  beforeAll(async () => {
    bridge = await startLiveBridge({ plugin: { source: PROBE_PLUGIN }, site: startHostileSite })
    ;({ browser, site } = bridge)
    mcp = await bridge.connect()
    await mcp.client.setLoggingLevel('debug')
    panel = await browser.openSidePanel()
    await panel
      .locator('[data-testid="connection-status"][data-state="connected"]')
      .waitFor({ timeout: 15_000 })
  }, BROWSER_START_TIMEOUT_MS)
  afterEach(async () => {
    for (const tab of tabs.splice(0)) await tab.close().catch(() => undefined)
  })
  afterAll(() => bridge?.close())

  const card = () => panel.getByTestId('plugin-probe')
  const probe = () => bridge.pluginDetail('probe')
  const open = async (path: string): Promise<Page> => {
    const tab = await browser.newPage(`${site.url}${path}`)
    tabs.push(tab)
    await tab.bringToFront()
    return tab
  }
  const progress: Array<{ message?: string }> = []
  const readNote = (id = 7) =>
    mcp.client.callTool({ name: 'probe_read_note', arguments: { id } }, undefined, {
      onprogress: (p) => progress.push(p),
      resetTimeoutOnProgress: true,
    })
  const registeredScripts = async () =>
    (await browser.serviceWorker()).evaluate(async () =>
      (await chrome.scripting.getRegisteredContentScripts()).map((s) => s.id),
    )
  const forgedAnywhere = () =>
    [...mcp.logs.map((l) => JSON.stringify(l)), ...progress.map((p) => JSON.stringify(p))].filter((text) =>
      /FORGED|SYSTEM/.test(text),
    )

  it('runs no code of a plugin whose tools are all off: no registration, no global, no effect in the page', async () => {
    const tab = await open('/plain')
    await expect.poll(async () => (await probe())?.tabState, { timeout: 15_000 }).toBe('unavailable')
    expect(await registeredScripts()).toEqual([])
    expect(await tab.evaluate(() => document.documentElement.getAttribute('data-probe-ran'))).toBeNull()
    expect(
      await tab.evaluate(() => Object.getOwnPropertyNames(window).filter((k) => /bridge/i.test(k))),
    ).toEqual([])
    expect((await probe())?.tabs).toEqual([expect.objectContaining({ ready: false })])
  })

  it('reports a tab loaded before the plugin was turned on as not isolated and refuses calls there until it is reloaded', async () => {
    const tab = await open('/plain')
    await expect.poll(async () => (await probe())?.tabs.length, { timeout: 15_000 }).toBe(1)
    await card().getByTestId('plugin-permission-auto').click()
    await expect.poll(registeredScripts, { timeout: 10_000 }).toEqual(['adapter:probe'])
    await expect.poll(() => card().getByTestId('stale-tab').count(), { timeout: 10_000 }).toBe(1)
    expect(await card().locator('[data-isolated="false"]').count()).toBe(1)
    const refused = await readNote()
    expect(refused.isError).toBe(true)
    expect(textOf(refused)).toMatch(/^\[tab_unavailable\].*reload its tab/)
    await tab.reload()
    await expect.poll(async () => (await probe())?.tabState, { timeout: 15_000 }).toBe('ready')
    expect(await card().getByTestId('stale-tab').count()).toBe(0)
    expect(await tab.evaluate(() => document.documentElement.getAttribute('data-probe-ran'))).toBe('yes')
    expect(JSON.parse(textOf(await readNote()))).toEqual({ body: REAL_NOTE })
  })

  it('ignores a page that defines the old adapter global: not ready, and the page never sees the input', async () => {
    await open('/global?out')
    await expect.poll(async () => (await probe())?.tabs.length, { timeout: 15_000 }).toBe(1)
    // Long enough for several readiness probes of a signed-out tab.
    await new Promise((resolve) => setTimeout(resolve, 3_000))
    expect((await probe())?.tabState).toBe('unavailable')
    const result = await readNote()
    expect(result.isError).toBe(true)
    expect(textOf(result)).toMatch(/^\[tab_unavailable\]/)
    expect(textOf(result)).not.toContain('FORGED')
    expect(site.reports.filter((r) => r.page === 'global')).toEqual([])
  })

  it.each([
    ['JSON.stringify', '/stringify'],
    ['fetch', '/fetch'],
    ['window.postMessage and MessagePort.prototype.postMessage', '/postMessage'],
  ])('returns the real result and progress when the page replaced %s', async (_what, path) => {
    progress.length = 0
    await open(path)
    await expect.poll(async () => (await probe())?.tabState, { timeout: 15_000 }).toBe('ready')
    const result = await readNote()
    expect(result.isError).toBeFalsy()
    expect(JSON.parse(textOf(result))).toEqual({ body: REAL_NOTE })
    expect(progress.map((p) => p.message)).toEqual(['reading the note', 'read the note'])
    // A failure stays a failure: the 404 is not turned into a success.
    const missing = await readNote(404)
    expect(missing.isError).toBe(true)
    expect(textOf(missing)).toContain('404')
    expect(textOf(missing)).not.toContain('FORGED')
    expect(forgedAnywhere()).toEqual([])
    // The page's own postMessage functions never carried anything of the adapter's.
    expect(
      site.reports.filter((r) => r.page === 'postMessage').map((r) => JSON.stringify(r)),
    ).not.toContainEqual(expect.stringMatching(/real note|reading|bridge-adapter/))
  })

  it.each([
    ['defined Response.prototype.then', '/responseThen'],
    [
      'replaced String, Number, Math.round, JSON, Array.prototype, String.prototype, RegExp.prototype, Error.prototype.name, XMLHttpRequest, Headers, Response, fetch and setTimeout',
      '/globals',
    ],
  ])(
    'returns the real result, progress and log, and sends the real request, when the page %s',
    async (_what, path) => {
      progress.length = 0
      const before = mcp.logs.length
      await open(path)
      await expect.poll(async () => (await probe())?.tabState, { timeout: 15_000 }).toBe('ready')
      const result = await readNote()
      expect(textOf(result)).not.toContain('FORGED')
      expect(result.isError).toBeFalsy()
      expect(JSON.parse(textOf(result))).toEqual({ body: REAL_NOTE })
      expect(site.apiCalls.at(-1)).toBe('GET /api/note/7')
      expect(progress.map((p) => p.message)).toEqual(['reading the note', 'read the note'])
      await expect
        .poll(() => mcp.logs.slice(before).map((l) => JSON.stringify(l.data)))
        .toContainEqual(expect.stringContaining('reading a note'))
      // A failure stays a failure, with its own message.
      const missing = await readNote(404)
      expect(missing.isError).toBe(true)
      expect(textOf(missing)).toBe('[tool_error] GET /api/note/404 answered 404 Not Found')
      expect(forgedAnywhere()).toEqual([])
    },
  )

  it('refuses rather than forges when the page defines Object.prototype.then', async () => {
    await open('/objectThen')
    await expect.poll(async () => (await probe())?.tabs.length, { timeout: 15_000 }).toBeGreaterThan(0)
    await new Promise((resolve) => setTimeout(resolve, 3_000))
    const result = await readNote()
    expect(result.isError).toBe(true)
    expect(textOf(result)).not.toContain('FORGED')
    expect(forgedAnywhere()).toEqual([])
  })

  it('refuses a result when the page defines Object.prototype.then only while the plugin’s request is on its way', async () => {
    await open('/timedThen')
    await expect.poll(async () => (await probe())?.tabState, { timeout: 15_000 }).toBe('ready')
    const result = await readNote()
    expect(textOf(result)).not.toContain('FORGED')
    expect(result.isError).toBe(true)
    expect(textOf(result)).toContain('the page replaced Object.prototype.then')
    expect(forgedAnywhere()).toEqual([])
  })

  it('does not take readiness or a result from a page that replaced Promise.prototype.then', async () => {
    await open('/then?out')
    await expect.poll(async () => (await probe())?.tabs.length, { timeout: 15_000 }).toBe(1)
    await new Promise((resolve) => setTimeout(resolve, 3_000))
    expect((await probe())?.tabState).toBe('unavailable')
    const refused = await readNote()
    expect(textOf(refused)).toMatch(/^\[tab_unavailable\]/)
    // Signed in, the page still patches promises: the call is refused rather than answered.
    const signedIn = await open('/then')
    await signedIn.bringToFront()
    const result = await readNote()
    expect(result.isError).toBe(true)
    expect(textOf(result)).not.toContain('FORGED')
  })

  it('drops forged logs, progress and handshakes: the agent sees only the plugin’s own', async () => {
    progress.length = 0
    const before = mcp.logs.length
    await open('/forge')
    await expect.poll(async () => (await probe())?.tabState, { timeout: 15_000 }).toBe('ready')
    const result = await readNote()
    expect(JSON.parse(textOf(result))).toEqual({ body: REAL_NOTE })
    expect(progress.map((p) => p.message)).toEqual(['reading the note', 'read the note'])
    await expect
      .poll(() => mcp.logs.slice(before).map((l) => JSON.stringify(l.data)))
      .toContainEqual(expect.stringContaining('reading a note'))
    // The page kept forging every 200 ms meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 1_000))
    expect(forgedAnywhere()).toEqual([])
    // The page never saw the adapter's hello or its port.
    const seen = site.reports.filter((r) => r.page === 'forge')
    expect(
      seen.filter(
        (r) => typeof r.ports === 'number' && r.ports > 0 && !String(r.sawMessage).includes('kind'),
      ),
    ).toEqual([])
  })
})
