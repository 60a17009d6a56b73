import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startDemoSite, type DemoSite } from '../../examples/demo-site/server.mjs'
import type { BrowserHarness } from '../helpers/browser'
import type { RunningDaemon } from '../helpers/daemon'
import { startLiveBridge, type LiveBridge } from '../helpers/liveBridge'
import { BROWSER_START_TIMEOUT_MS } from '../helpers/timing'
import { textOf, type McpConnection } from '../helpers/mcpClient'

// The whole product as a user runs it: `bridge start` (the real daemon process, which installs the
// extension into <config>/extension), the example notes plugin built with `bridge-plugin build`,
// Chromium with that extension folder loaded, the demo site, and an agent on the MCP SDK client.
describe('tool calls end to end', () => {
  let bridge: LiveBridge<DemoSite>
  let configDir: string
  let daemon: RunningDaemon
  let browser: BrowserHarness
  let site: DemoSite
  let mcp: McpConnection
  let panel: Page
  let notesTab: Page

  beforeAll(async () => {
    bridge = await startLiveBridge({ plugin: {}, site: () => startDemoSite({ port: 0 }) })
    ;({ configDir, daemon, browser, site } = bridge)
    mcp = await bridge.connect()
    panel = await browser.openSidePanel()
  }, BROWSER_START_TIMEOUT_MS)
  afterAll(() => bridge?.close())

  const notesHealth = () => bridge.pluginDetail('notes')
  const call = (
    name: string,
    args: Record<string, unknown> = {},
    onprogress?: (p: { progress: number; total?: number; message?: string }) => void,
  ) =>
    mcp.client.callTool(
      { name, arguments: args },
      undefined,
      onprogress ? { onprogress, resetTimeoutOnProgress: true } : undefined,
    )
  const card = () => panel.getByTestId('plugin-notes')
  const config = () =>
    JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8')) as {
      permissions: Record<string, { permission?: string; tools?: Record<string, string> }>
    }

  it('shows the tab state of a plugin whose tools are all off from the tabs alone: closed, then unavailable', async () => {
    await expect
      .poll(() => panel.getByTestId('connection-status').getAttribute('data-state'), { timeout: 15_000 })
      .toBe('connected')
    expect(await notesHealth()).toMatchObject({ tabState: 'closed', tabs: [] })
    notesTab = await browser.newPage(`${site.url}/`)
    await expect.poll(async () => (await notesHealth())?.tabState, { timeout: 15_000 }).toBe('unavailable')
    await notesTab.goto(`${site.url}/login?user=erin`)
    // Signed in, but the plugin runs no code while it is off: nothing says the page is ready.
    await expect
      .poll(async () => (await notesHealth())?.tabs, { timeout: 15_000 })
      .toEqual([expect.objectContaining({ url: `${site.url}/`, ready: false })])
    expect((await notesHealth())?.tabState).toBe('unavailable')
  })

  it('refuses a call to a tool that is off', async () => {
    const result = await call('notes_whoami')
    expect(result.isError).toBe(true)
    expect(textOf(result)).toMatch(/^\[permission_off\]/)
  })

  it('runs an auto tool at once and returns the page’s data', async () => {
    await card().getByTestId('toggle-tools').click()
    await card().getByTestId('tool-whoami').getByTestId('tool-permission-auto').click()
    await expect.poll(() => config().permissions.notes?.tools?.whoami).toBe('auto')
    // The tab was loaded while the plugin was off: it gets the plugin when it reloads.
    await expect.poll(() => card().getByTestId('stale-tab').count(), { timeout: 10_000 }).toBe(1)
    expect(textOf(await call('notes_whoami'))).toMatch(/^\[tab_unavailable\].*reload its tab/)
    await browser.waitForAdapter('notes')
    await notesTab.reload()
    await expect.poll(async () => (await notesHealth())?.tabState, { timeout: 15_000 }).toBe('ready')
    await expect.poll(() => card().getByTestId('tab-state').getAttribute('data-state')).toBe('ready')
    const result = await call('notes_whoami')
    expect(result.isError).toBeFalsy()
    expect(JSON.parse(textOf(result))).toEqual({ user: 'erin' })
  })

  it('waits for approval in the side panel for an ask tool: allowed once, then denied', async () => {
    await card().getByTestId('plugin-permission-ask').click()
    await expect.poll(() => config().permissions.notes?.permission).toBe('ask')
    const created = call('notes_create_note', { title: 'From the agent', body: 'hello' })
    const approval = panel.getByTestId('approval')
    await expect.poll(() => approval.count(), { timeout: 10_000 }).toBe(1)
    expect(await approval.getByTestId('approval-tool').textContent()).toBe('notes_create_note')
    expect(JSON.parse((await approval.getByTestId('approval-params').textContent()) ?? '')).toEqual({
      title: 'From the agent',
      body: 'hello',
    })
    await approval.getByTestId('approve-once').click()
    const result = await created
    expect(result.isError).toBeFalsy()
    expect(JSON.parse(textOf(result))).toMatchObject({ note: { title: 'From the agent', body: 'hello' } })
    await notesTab.reload()
    expect(await notesTab.textContent('main')).toContain('From the agent')

    // The answered card leaves the panel before the next request shows its own.
    await expect.poll(() => approval.count(), { timeout: 10_000 }).toBe(0)
    const denied = call('notes_create_note', { title: 'Not this one' })
    await expect
      .poll(
        async () =>
          (await approval.count()) === 1 ? approval.getByTestId('approval-params').textContent() : '',
        {
          timeout: 20_000,
        },
      )
      .toContain('Not this one')
    await approval.getByTestId('deny').click()
    const refused = await denied
    expect(refused.isError).toBe(true)
    expect(textOf(refused)).toMatch(/^\[approval_denied\]/)
  })

  it('shows what each tool declares beside its switch, and a destructive call says so on its approval card', async () => {
    const kind = (tool: string) => card().getByTestId(`tool-${tool}`).getByTestId('tool-kind')
    expect(await kind('delete_note').getAttribute('data-kind')).toBe('destructive')
    expect(await kind('delete_note').textContent()).toBe('destructive')
    expect(await kind('delete_note').getAttribute('title')).toContain(
      'Demo Notes declares that this tool changes things; may delete or overwrite data; repeating it has no further effect',
    )
    expect(await kind('list_notes').textContent()).toBe('read-only')
    // create_note declares that it only adds: neither read-only nor destructive, so no badge.
    expect(await kind('create_note').count()).toBe(0)
    // The built-in tools carry bridge's own hints the same way.
    await panel.getByTestId('toggle-browser-tools').click()
    const builtIn = panel.getByTestId('browser-tools').getByTestId('tool-browser_click')
    expect(await builtIn.getByTestId('tool-title').textContent()).toBe('Click')
    expect(await builtIn.getByTestId('tool-kind').textContent()).toBe('destructive')
    await panel.getByTestId('toggle-browser-tools').click()

    // The plugin's tools ask (set above): the card names the tool and says plainly what it declares.
    const deleting = call('notes_delete_note', { id: 1 })
    const approval = panel.getByTestId('approval')
    await expect.poll(() => approval.count(), { timeout: 10_000 }).toBe(1)
    expect(await approval.getByTestId('approval-tool').textContent()).toBe('notes_delete_note')
    expect(await approval.getByTestId('approval-title').textContent()).toBe(' (Delete note)')
    const hint = approval.getByTestId('approval-kind')
    expect(await hint.getAttribute('data-kind')).toBe('destructive')
    expect(await hint.textContent()).toBe(
      'Destructive: Demo Notes declares that this tool may delete or overwrite data. Check the arguments before you allow it.',
    )
    await approval.getByTestId('deny').click()
    expect(textOf(await deleting)).toMatch(/^\[approval_denied\]/)
    await expect.poll(() => approval.count(), { timeout: 10_000 }).toBe(0)
  })

  it('"always allow" runs the call, persists auto in config.json, and later calls run without asking', async () => {
    const first = call('notes_list_notes', {})
    const approval = panel.getByTestId('approval')
    await expect.poll(() => approval.count(), { timeout: 10_000 }).toBe(1)
    // A read-only tool still asks when set to ask: what a tool declares never lowers its permission.
    expect(await approval.getByTestId('approval-kind').getAttribute('data-kind')).toBe('read-only')
    await approval.getByTestId('approve-always').click()
    expect(JSON.parse(textOf(await first)).notes).toHaveLength(1)
    expect(config().permissions.notes?.tools?.list_notes).toBe('auto')
    const second = await call('notes_list_notes', {})
    expect(second.isError).toBeFalsy()
    expect(await approval.count()).toBe(0)
  })

  it('forwards the tool’s progress and the plugin’s logs to the agent', async () => {
    await card().getByTestId('tool-slow_count').getByTestId('tool-permission-auto').click()
    await expect.poll(() => config().permissions.notes?.tools?.slow_count).toBe('auto')
    await mcp.client.setLoggingLevel('debug')
    const seen: Array<{ progress: number; total?: number; message?: string }> = []
    const result = await call('notes_slow_count', { to: 3, stepMs: 50 }, (p) => seen.push(p))
    expect(JSON.parse(textOf(result))).toEqual({ counted: 3 })
    expect(seen.map((p) => p.message)).toEqual(['counted 1 of 3', 'counted 2 of 3', 'counted 3 of 3'])
    expect(seen[2]).toMatchObject({ progress: 3, total: 3 })
    await expect
      .poll(() => mcp.logs.map((l) => JSON.stringify(l.data)))
      .toContainEqual(expect.stringContaining('done counting'))
    const listed = await call('notes_list_notes', {})
    expect(listed.isError).toBeFalsy()
    await expect
      .poll(() => mcp.logs.map((l) => JSON.stringify(l.data)))
      .toContainEqual(expect.stringContaining('found 1 notes'))
  })

  it('runs in the next ready tab when the preferred one turns out not ready', async () => {
    // The same site on localhost has its own cookies: signed in as another user there.
    const other = await browser.newPage(`${site.url.replace('127.0.0.1', 'localhost')}/login?user=frank`)
    await expect
      .poll(async () => (await notesHealth())?.tabs.filter((t) => t.ready).length, { timeout: 15_000 })
      .toBe(2)
    await notesTab.bringToFront()
    expect(JSON.parse(textOf(await call('notes_whoami')))).toEqual({ user: 'erin' })
    await notesTab.evaluate(() => document.querySelector('main[data-user]')?.removeAttribute('data-user'))
    expect(JSON.parse(textOf(await call('notes_whoami')))).toEqual({ user: 'frank' })
    await expect
      .poll(async () => (await notesHealth())?.tabs.find((t) => t.url === `${site.url}/`)?.ready)
      .toBe(false)
    await other.close()
    await expect.poll(async () => (await notesHealth())?.tabState, { timeout: 15_000 }).toBe('unavailable')
    const unavailable = await call('notes_whoami')
    expect(textOf(unavailable)).toMatch(/^\[tab_unavailable\]/)
  })

  it('lists the calls in the side panel’s recent activity', async () => {
    await panel.reload()
    const entries = panel.getByTestId('audit-entry')
    await expect.poll(() => entries.count(), { timeout: 10_000 }).toBeGreaterThan(5)
    expect(await entries.first().textContent()).toContain('notes_whoami')
    expect(await entries.first().getAttribute('data-success')).toBe('false')
    expect(await entries.first().getByTestId('audit-error').textContent()).toContain('[tab_unavailable]')
  })

  it('turns a plugin’s tools off after it updates to an unreviewed version, until the user marks it reviewed', async () => {
    await bridge.plugin!.rebuild('0.2.0', configDir, daemon.port)
    await expect.poll(() => card().getByTestId('review-needed').count(), { timeout: 15_000 }).toBe(1)
    expect(await card().getByTestId('review-needed').textContent()).toContain('version 0.2.0')
    const off = await call('notes_whoami')
    expect(textOf(off)).toMatch(/^\[permission_off\]/)
    await card().getByTestId('mark-reviewed').click()
    await expect.poll(() => card().getByTestId('review-needed').count(), { timeout: 10_000 }).toBe(0)
    // The user reloads the tab at once, while the adapter is being registered anew: that load is
    // reloaded by the extension once the registration holds, so no second reload by hand is needed.
    await notesTab.reload()
    await expect.poll(async () => (await notesHealth())?.tabState, { timeout: 20_000 }).toBe('ready')
    expect(await card().getByTestId('stale-tab').count()).toBe(0)
    expect(JSON.parse(textOf(await call('notes_whoami')))).toEqual({ user: 'erin' })
  })
})
