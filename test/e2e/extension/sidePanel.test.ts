import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { DemoSite } from '../../../examples/demo-site/server.mjs'
import type { BrowserHarness } from '../../helpers/browser'
import { BROWSER_START_TIMEOUT_MS } from '../../helpers/timing'
import { startNotesInExtension, type NotesInExtension } from '../../helpers/notesInExtension'
import type { BuiltPlugin } from '../support/fixturePlugin'
import type { TinyDaemon } from './tinyDaemon'

// The side panel as the user sees it: approvals (queued, badge, decisions), plugin cards with tab
// state and permission controls, against a scripted daemon that records the extension's messages.
describe('side panel', () => {
  let env: NotesInExtension
  let daemon: TinyDaemon
  let browser: BrowserHarness
  let plugin: BuiltPlugin
  let site: DemoSite
  let panel: Page

  beforeAll(async () => {
    env = await startNotesInExtension({
      state: (built) => built.state('ask'),
      answers: {
        'config.setPluginPermission': () => ({ ok: true }),
        'config.setToolPermission': () => ({ ok: true }),
      },
    })
    ;({ plugin, site, daemon, browser } = env)
    panel = await browser.openSidePanel()
  }, BROWSER_START_TIMEOUT_MS)
  afterAll(() => env?.close())

  // The worker's global `chrome` is not in the Node typings: evaluate the expression as text.
  const badge = async (): Promise<unknown> =>
    (await browser.serviceWorker()).evaluate('chrome.action.getBadgeText({})')
  const request = (id: string, tool: string, params: unknown) =>
    daemon.notify('confirmation.request', {
      id,
      plugin: 'notes',
      tool,
      params,
      expiresAt: Date.now() + 60_000,
      client: 'test-agent',
    })

  it('shows each plugin with its tab state, tool count, source and version', async () => {
    const card = panel.getByTestId('plugin-notes')
    await expect.poll(() => card.getByTestId('tab-state').textContent()).toBe('No tab open')
    expect(await card.getByTestId('tool-count').textContent()).toBe('5 tools')
    expect(await card.getByTestId('plugin-source').textContent()).toBe('local')
    expect(await card.textContent()).toContain('Demo Notes 0.1.0')
    const tab = await browser.newPage(`${site.url}/login?user=carol`)
    await expect
      .poll(() => card.getByTestId('tab-state').getAttribute('data-state'), { timeout: 10_000 })
      .toBe('ready')
    expect(await card.getByTestId('tab-state').textContent()).toBe('Ready')
    await tab.goto(`${site.url}/logout`)
    await expect
      .poll(() => card.getByTestId('tab-state').getAttribute('data-state'), { timeout: 10_000 })
      .toBe('unavailable')
    expect(await card.getByTestId('tab-state').textContent()).toBe('Not ready')
    expect(await card.getByTestId('tab-state').getAttribute('title')).toBe(
      'A matching tab is open but the plugin is not ready there: turn on at least one of its tools, sign in to the site in that tab, or reload the tab.',
    )
    await tab.close()
    await expect
      .poll(() => card.getByTestId('tab-state').getAttribute('data-state'), { timeout: 10_000 })
      .toBe('closed')
  })

  it('queues approval requests with plugin, tool and arguments, and counts them on the badge', async () => {
    request('c1', 'create_note', { title: 'Groceries', body: 'milk' })
    request('c2', 'delete_note', { id: 7 })
    const cards = panel.getByTestId('approval')
    await expect.poll(() => cards.count()).toBe(2)
    expect(await panel.getByTestId('approval-count').textContent()).toBe('2')
    expect(await cards.nth(0).getByTestId('approval-plugin').textContent()).toBe('Demo Notes')
    expect(await cards.nth(0).getByTestId('approval-tool').textContent()).toBe('notes_create_note')
    expect(JSON.parse((await cards.nth(0).getByTestId('approval-params').textContent()) ?? '')).toEqual({
      title: 'Groceries',
      body: 'milk',
    })
    expect(await cards.nth(1).getByTestId('approval-tool').textContent()).toBe('notes_delete_note')
    expect(await badge()).toBe('2')
  })

  it('shows a system notification while approvals wait, and clears it when none are left', async () => {
    const ids = async (): Promise<unknown> =>
      (await browser.serviceWorker()).evaluate('chrome.notifications.getAll().then(Object.keys)')
    expect(await ids()).toEqual(['bridge-approvals'])
  })

  it('sends the user’s decisions: allow once, deny, always allow', async () => {
    await panel.locator('[data-approval-id="c1"]').getByTestId('approve-once').click()
    const once = await daemon.waitFor(
      (f) => f.method === 'confirmation.response' && (f.params as { id: string }).id === 'c1',
    )
    expect(once.params).toEqual({ id: 'c1', decision: 'allow_once' })
    await expect.poll(() => panel.getByTestId('approval').count()).toBe(1)
    expect(await badge()).toBe('1')

    await panel.locator('[data-approval-id="c2"]').getByTestId('deny').click()
    const deny = await daemon.waitFor(
      (f) => f.method === 'confirmation.response' && (f.params as { id: string }).id === 'c2',
    )
    expect(deny.params).toEqual({ id: 'c2', decision: 'deny' })
    await expect.poll(() => panel.getByTestId('approval').count()).toBe(0)
    expect(await badge()).toBe('')
    await expect
      .poll(async () =>
        (await browser.serviceWorker()).evaluate('chrome.notifications.getAll().then(Object.keys)'),
      )
      .toEqual([])

    request('c3', 'whoami', {})
    await panel.locator('[data-approval-id="c3"]').getByTestId('approve-always').click()
    const always = await daemon.waitFor(
      (f) => f.method === 'confirmation.response' && (f.params as { id: string }).id === 'c3',
    )
    expect(always.params).toEqual({ id: 'c3', decision: 'allow_always' })
  })

  it('drops a request the daemon cancels, and one that expires', async () => {
    request('c4', 'whoami', {})
    await expect.poll(() => panel.getByTestId('approval').count()).toBe(1)
    daemon.notify('confirmation.cancel', { id: 'c4', reason: 'the call was cancelled' })
    await expect.poll(() => panel.getByTestId('approval').count()).toBe(0)
    daemon.notify('confirmation.request', {
      id: 'c5',
      plugin: 'notes',
      tool: 'whoami',
      params: {},
      expiresAt: Date.now() + 800,
      client: 'test-agent',
    })
    await expect.poll(() => panel.getByTestId('approval').count()).toBe(1)
    await expect.poll(() => panel.getByTestId('approval').count(), { timeout: 5_000 }).toBe(0)
    expect(
      daemon.frames.some(
        (f) => f.method === 'confirmation.response' && (f.params as { id: string }).id === 'c5',
      ),
    ).toBe(false)
  })

  it('says on the card that a tool is destructive when the request carries its annotations, and nothing when none', async () => {
    daemon.notify('confirmation.request', {
      id: 'c6',
      plugin: 'notes',
      tool: 'delete_note',
      params: { id: 3 },
      expiresAt: Date.now() + 60_000,
      client: 'test-agent',
      title: 'Delete note',
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
    })
    // As an older daemon sends it: no title, no annotations.
    request('c7', 'create_note', { title: 'x' })
    const destructive = panel.locator('[data-approval-id="c6"]')
    const plain = panel.locator('[data-approval-id="c7"]')
    await expect.poll(() => panel.getByTestId('approval').count()).toBe(2)
    expect(await destructive.getByTestId('approval-title').textContent()).toBe(' (Delete note)')
    expect(await destructive.getByTestId('approval-kind').textContent()).toBe(
      'Destructive: Demo Notes declares that this tool may delete or overwrite data. Check the arguments before you allow it.',
    )
    expect(await plain.getByTestId('approval-kind').count()).toBe(0)
    expect(await plain.getByTestId('approval-title').count()).toBe(0)
    // The buttons are the same either way: the hint decides nothing.
    for (const card of [destructive, plain])
      expect(await card.locator('button').allTextContents()).toEqual(['Allow once', 'Always allow', 'Deny'])
    for (const id of ['c6', 'c7']) {
      await panel.locator(`[data-approval-id="${id}"]`).getByTestId('deny').click()
      await daemon.waitFor(
        (f) => f.method === 'confirmation.response' && (f.params as { id: string }).id === id,
      )
    }
    await expect.poll(() => panel.getByTestId('approval').count()).toBe(0)
  })

  it('changes the plugin and per-tool permissions through the daemon', async () => {
    const card = panel.getByTestId('plugin-notes')
    expect(await card.getByTestId('plugin-permission').getAttribute('data-value')).toBe('ask')
    await card.getByTestId('plugin-permission-auto').click()
    const plug = await daemon.waitFor((f) => f.method === 'config.setPluginPermission')
    expect(plug.params).toEqual({ plugin: 'notes', permission: 'auto' })
    await card.getByTestId('toggle-tools').click()
    await card.getByTestId('tool-delete_note').getByTestId('tool-permission-off').click()
    const tool = await daemon.waitFor((f) => f.method === 'config.setToolPermission')
    expect(tool.params).toEqual({ plugin: 'notes', tool: 'delete_note', permission: 'off' })
    // The panel shows what the daemon says, not what was clicked: it changes with plugins.changed.
    daemon.notify('plugins.changed', { plugins: [plugin.state('auto')], failedPlugins: [] })
    await expect.poll(() => card.getByTestId('plugin-permission').getAttribute('data-value')).toBe('auto')
    // A new version the person has not reviewed: "All tools" shows what agents get (off), and the
    // notice says what changed.
    daemon.notify('plugins.changed', {
      plugins: [
        {
          ...plugin.state('off'),
          permission: 'auto',
          reviewed: false,
          version: '0.2.0',
          review: { change: 'version', reviewedVersion: '0.1.0', installedPackage: 'bridge-plugin-notes' },
        },
      ],
      failedPlugins: [],
    })
    await expect.poll(() => card.getByTestId('plugin-permission').getAttribute('data-value')).toBe('off')
    expect(await card.getByTestId('review-needed').textContent()).toBe(
      'Review needed: version 0.2.0 replaced version 0.1.0, which you reviewed, so its tools are off. Mark 0.2.0 reviewed',
    )
    // Same version, new code (a package's adapter changed): said as such, not as a version change.
    daemon.notify('plugins.changed', {
      plugins: [
        {
          ...plugin.state('off'),
          permission: 'auto',
          reviewed: false,
          review: { change: 'adapter', reviewedVersion: '0.1.0', installedPackage: 'bridge-plugin-notes' },
        },
      ],
      failedPlugins: [],
    })
    await expect
      .poll(() => card.getByTestId('review-needed').textContent())
      .toContain('its code changed under the same version 0.1.0 since you reviewed it')
  })

  it('asks the daemon to open a local plugin’s folder', async () => {
    daemon.answers.set('folder.open', () => ({ ok: true }))
    await panel.getByTestId('plugin-notes').getByTestId('open-folder').click()
    const open = await daemon.waitFor((f) => f.method === 'folder.open')
    expect(open.params).toEqual({ path: plugin.dir })
  })

  it('shows the error the daemon returns for a refused change', async () => {
    daemon.answers.delete('config.setPluginPermission')
    await panel.getByTestId('plugin-notes').getByTestId('plugin-permission-ask').click()
    await expect.poll(() => panel.getByTestId('panel-error').textContent()).toContain('not in this test')
  })

  it('shows commands in the daemon’s errors and failed plugins as code, never as raw backticks', async () => {
    daemon.answers.set('config.setPluginPermission', () => {
      throw new Error('the config folder is read-only: run `bridge doctor`')
    })
    await panel.getByTestId('plugin-notes').getByTestId('plugin-permission-auto').click()
    const error = panel.getByTestId('panel-error')
    await expect
      .poll(() => error.textContent())
      .toContain('the config folder is read-only: run bridge doctor')
    expect(await error.locator('code').allTextContents()).toEqual(['bridge doctor'])
    daemon.notify('plugins.changed', {
      plugins: [plugin.state('auto')],
      failedPlugins: [
        { path: '/p/broken', error: 'no dist/tools.json: build it with `npx bridge-plugin build`' },
      ],
    })
    const failed = panel.getByTestId('failed-plugins')
    await expect.poll(() => failed.textContent()).toContain('build it with npx bridge-plugin build')
    expect(await failed.textContent()).not.toContain('`')
    expect(await failed.locator('code').allTextContents()).toEqual(['/p/broken', 'npx bridge-plugin build'])
    daemon.answers.delete('config.setPluginPermission')
  })

  it('warns when permission checks are skipped and lists the built-in tools with their permissions', async () => {
    daemon.skipPermissions = true
    daemon.browserTools = [
      {
        name: 'browser_list_tabs',
        displayName: 'List tabs',
        description: 'List open tabs',
        permission: 'auto',
      },
      { name: 'browser_click', displayName: 'Click', description: 'Click an element', permission: 'off' },
    ]
    daemon.resync()
    await expect.poll(() => panel.getByTestId('skip-permissions').isVisible()).toBe(true)
    expect(await panel.getByTestId('skip-permissions').textContent()).toContain(
      'tools set to ask run without asking',
    )
    const tools = panel.getByTestId('browser-tools')
    expect(await tools.textContent()).toContain('1 of 2 enabled')
    await tools.getByTestId('toggle-browser-tools').click()
    daemon.answers.set('config.setToolPermission', () => ({ ok: true }))
    const since = daemon.frames.length
    await tools.getByTestId('tool-browser_click').getByTestId('tool-permission-ask').click()
    const set = await daemon.waitFor((f) => f.method === 'config.setToolPermission', 5_000, since)
    expect(set.params).toEqual({ plugin: 'browser', tool: 'browser_click', permission: 'ask' })
  })

  it('lists the built-in tools by group, core first, and turns a whole group on from its switch', async () => {
    daemon.skipPermissions = false
    daemon.browserTools = [
      { name: 'browser_network_start', displayName: 'Start', description: 'Record', permission: 'off' },
      { name: 'browser_click', displayName: 'Click', description: 'Click an element', permission: 'auto' },
      { name: 'browser_network_stop', displayName: 'Stop', description: 'Stop', permission: 'off' },
    ]
    daemon.resync()
    const tools = panel.getByTestId('browser-tools')
    await expect.poll(() => tools.textContent()).toContain('1 of 3 enabled')
    if (!(await tools.getByTestId('tool-group-core').isVisible()))
      await tools.getByTestId('toggle-browser-tools').click()
    const groups = await tools
      .locator('[data-testid^="tool-group-"]')
      .evaluateAll((els) => els.map((e) => e.getAttribute('data-testid')))
    expect(groups).toEqual(['tool-group-core', 'tool-group-devtools'])
    const group = tools.getByTestId('tool-group-devtools')
    expect(await group.getByTestId('group-permission').getAttribute('data-value')).toBe('off')
    const since = daemon.frames.length
    await group.getByTestId('group-permission-ask').click()
    await daemon.waitFor(
      (f) =>
        f.method === 'config.setToolPermission' &&
        (f.params as { tool: string }).tool === 'browser_network_stop',
      5_000,
      since,
    )
    const sets = daemon.frames
      .slice(since)
      .filter((f) => f.method === 'config.setToolPermission')
      .map((f) => f.params)
    expect(sets).toEqual([
      { plugin: 'browser', tool: 'browser_network_start', permission: 'ask' },
      { plugin: 'browser', tool: 'browser_network_stop', permission: 'ask' },
    ])
  })

  it('drops waiting approvals when the connection to the daemon is lost', async () => {
    request('c6', 'whoami', {})
    await expect.poll(() => panel.getByTestId('approval').count()).toBe(1)
    daemon.drop()
    await expect.poll(() => panel.getByTestId('approval').count()).toBe(0)
    expect(await badge()).toBe('')
    await expect.poll(() => daemon.isConnected(), { timeout: 10_000 }).toBe(true)
  })

  it('shows calls while they run', async () => {
    daemon.notify('tool.invocationStart', { dispatchId: 'r1', plugin: 'notes', tool: 'slow_count' })
    await expect.poll(() => panel.getByTestId('running').textContent()).toContain('notes_slow_count')
    daemon.notify('tool.invocationEnd', {
      dispatchId: 'r1',
      plugin: 'notes',
      tool: 'slow_count',
      success: true,
      durationMs: 5,
    })
    await expect.poll(() => panel.getByTestId('running').count()).toBe(0)
  })

  it('keeps counting the age of recent calls while the panel stays open', async () => {
    daemon.audit = [
      {
        timestamp: new Date(Date.now() - 30_000).toISOString(),
        tool: 'notes_whoami',
        plugin: 'notes',
        success: true,
        durationMs: 3,
      },
    ]
    // A recorded call makes the panel fetch the list again.
    daemon.notify('audit.recorded', { tool: 'notes_whoami', success: true })
    const age = panel.getByTestId('audit-entry').first().getByTestId('audit-age')
    const seconds = async () => Number(/^(\d+)s ago$/.exec((await age.textContent()) ?? '')?.[1] ?? NaN)
    await expect.poll(seconds, { timeout: 10_000 }).toBeGreaterThanOrEqual(30)
    const first = await seconds()
    await expect.poll(seconds, { timeout: 15_000 }).toBeGreaterThanOrEqual(first + 2)
  })

  it('drops a plugin the daemon uninstalls', async () => {
    const answer = await daemon.request('plugin.uninstall', { name: 'notes' })
    expect(answer.result).toEqual({ ok: true })
    await expect.poll(() => panel.getByTestId('plugin-notes').count()).toBe(0)
  })
})
