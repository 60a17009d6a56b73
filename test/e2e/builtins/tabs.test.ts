import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startBuiltinsHarness, type BuiltinsHarness } from './harness'

interface Tab {
  tabId: number
  windowId: number
  url: string
  title: string
  active: boolean
  status: string
}

describe('built-in tab and navigation tools in real Chromium', () => {
  let h: BuiltinsHarness
  beforeAll(async () => {
    h = await startBuiltinsHarness()
  })
  afterAll(async () => {
    await h?.close()
  })

  it('browser_open_tab opens a page, waits for it and reports it', async () => {
    const tab = await h.ok<Tab>('browser_open_tab', { url: h.site.url('/') })
    expect(tab.url).toBe(h.site.url('/'))
    expect(tab.title).toBe('Fixture home')
    expect(tab.status).toBe('complete')
    expect(tab.active).toBe(true)
  })

  it("keeps each MCP client in a tab group of its own and refuses another agent's tab unless told", async () => {
    const ok = async <T>(caller: { client?: string; session?: string }, tool: string, input = {}) => {
      const result = await h.callAs(caller, tool, input)
      if (!result.ok) throw new Error(`${tool}: ${result.error.message}`)
      return result.value as T
    }
    const alice = { client: 'alice-agent', session: 'a1b2c3d4e5' }
    const bob = { session: '0f9e8d7c6b5a' }
    const a1 = await ok<Tab>(alice, 'browser_open_tab', { url: h.site.url('/') })
    const a2 = await ok<Tab>(alice, 'browser_open_tab', { url: h.site.url('/form') })
    const b1 = await ok<Tab>(bob, 'browser_open_tab', { url: h.site.url('/long') })
    const info = (tabId: number) =>
      ok<{ groupId: number | null; agent?: string }>(alice, 'browser_tab_info', { tabId })
    const [i1, i2] = [await info(a1.tabId), await info(a2.tabId)]
    expect(i1).toMatchObject({ agent: 'alice-agent' })
    expect(i2.groupId).toBe(i1.groupId)
    const groups = await ok<{
      groups: { groupId: number; title: string; agent?: string; tabIds: number[] }[]
    }>(bob, 'browser_list_tab_groups')
    expect(groups.groups).toContainEqual(
      expect.objectContaining({ title: 'alice-agent', agent: 'alice-agent', tabIds: [a1.tabId, a2.tabId] }),
    )
    expect(groups.groups).toContainEqual(
      expect.objectContaining({ title: 'agent 0f9e8d7c', agent: 'agent 0f9e8d7c', tabIds: [b1.tabId] }),
    )
    const refused = await h.callAs(bob, 'browser_get_text', { tabId: a1.tabId })
    expect(refused).toMatchObject({
      ok: false,
      error: {
        code: 'tool_error',
        category: 'validation',
        message: `tab ${a1.tabId} is in the tab group of "alice-agent", another agent: use your own tabs (browser_open_tab), or pass otherAgent: true if the user asked you to act there`,
      },
    })
    expect(
      await ok<{ text: string }>(bob, 'browser_get_text', {
        tabId: a1.tabId,
        selector: 'h1',
        otherAgent: true,
      }),
    ).toMatchObject({ text: 'Welcome to the fixture' })
    // A tab an agent's click opens joins that agent's group.
    const b2 = await ok<Tab>(bob, 'browser_open_tab', { url: h.site.url('/form') })
    const clicked = await ok<string>(bob, 'browser_click', { tabId: b2.tabId, selector: '#popup' })
    const popup = Number(/^Opened tab (\d+): /m.exec(clicked)?.[1])
    const bobInfo = (tabId: number) =>
      ok<{ groupId: number | null; agent?: string }>(bob, 'browser_tab_info', { tabId })
    expect(await bobInfo(popup)).toMatchObject({
      agent: 'agent 0f9e8d7c',
      groupId: (await bobInfo(b1.tabId)).groupId,
    })
    // A dialog open in alice's tab is named in alice's results, not in bob's.
    const a3 = await ok<Tab>(alice, 'browser_open_tab', { url: h.site.url('/dialog') })
    ;(await h.pageAt(h.site.url('/dialog'))).on('dialog', () => undefined)
    await ok(alice, 'browser_click', { tabId: a3.tabId, selector: '#ask' })
    await expect
      .poll(
        async () =>
          (await ok<{ openDialogs?: { tabId: number }[] }>(alice, 'browser_list_windows')).openDialogs,
      )
      .toEqual([
        {
          tabId: a3.tabId,
          type: 'confirm',
          message: 'Delete everything?',
          answerWith: 'browser_handle_dialog',
        },
      ])
    expect((await ok<{ openDialogs?: unknown }>(bob, 'browser_list_windows')).openDialogs).toBeUndefined()
    await ok(alice, 'browser_handle_dialog', { tabId: a3.tabId, accept: false })
    // Calls that name no client (the daemon did not say who) are not refused.
    expect((await h.call('browser_get_text', { tabId: a1.tabId, selector: 'h1' })).ok).toBe(true)
  })

  it('browser_list_tabs lists open tabs and filters by URL', async () => {
    const { tabs } = await h.ok<{ tabs: (Tab & { focusedWindow: boolean })[] }>('browser_list_tabs')
    expect(tabs.some((t) => t.title === 'Fixture home')).toBe(true)
    const { tabs: only } = await h.ok<{ tabs: Tab[] }>('browser_list_tabs', { urlContains: '127.0.0.1' })
    expect(only.length).toBeGreaterThan(0)
    expect(only.every((t) => t.url.includes('127.0.0.1'))).toBe(true)
  })

  it('browser_navigate loads a URL in the active tab and returns the page; back, forward and reload follow history', async () => {
    const start = await h.ok<Tab>('browser_open_tab', { url: h.site.url('/') })
    const nav = await h.ok<string>('browser_navigate', { url: h.site.url('/form') })
    // The loaded page as browser_snapshot gives it: no second call needed to see it.
    expect(nav.split('\n').slice(0, 2)).toEqual([`URL: ${h.site.url('/form')}`, 'Title: Form page'])
    expect(nav).toMatch(/^ - textbox "Email" \[ref=e\d+\]$/m)
    const back = await h.ok<string>('browser_go_back', { tabId: start.tabId })
    expect(back).toContain('Title: Fixture home')
    const forward = await h.ok<string>('browser_go_forward', { tabId: start.tabId })
    expect(forward).toContain('Title: Form page')
    const reloaded = await h.ok<Tab>('browser_reload', {
      tabId: start.tabId,
      bypassCache: true,
      snapshot: 'none',
    })
    expect(reloaded).toMatchObject({ tabId: start.tabId, title: 'Form page', status: 'complete' })
  })

  it('browser_navigate returns a page once it has loaded and its DOM is still, and the page library serves every later call', async () => {
    await h.ok<Tab>('browser_open_tab', { url: h.site.url('/') })
    // A load longer than a look at the tab: the result is the page that arrived, not the one before it.
    const late = await h.ok<string>('browser_navigate', { url: h.site.url('/late') })
    expect(late).toContain('Title: Late page')
    expect(late).toContain('late but whole')
    // A page that keeps adding rows for a while after its load event: the result waits for the last.
    const rendered = await h.ok<string>('browser_navigate', { url: h.site.url('/rendering') })
    expect(rendered).toContain('All rows in')
    expect(rendered).toContain('row 12')
    // Later calls in the same document find the library there; a new document gets its own.
    expect(await h.ok<string>('browser_snapshot', {})).toContain('row 12')
    await h.ok<string>('browser_navigate', { url: h.site.url('/late') })
    expect(JSON.stringify(await h.ok('browser_get_text', {}))).toContain('late but whole')
  })

  it('browser_reload really reloads the page', async () => {
    const tab = await h.ok<Tab>('browser_open_tab', { url: h.site.url('/counter') })
    const loads = async () =>
      (await h.ok<{ text: string }>('browser_get_text', { tabId: tab.tabId, selector: '#loads' })).text
    expect(await loads()).toBe('loaded 1 times')
    await h.ok('browser_reload', { tabId: tab.tabId })
    expect(await loads()).toBe('loaded 2 times')
  })

  it('browser_open_tab can open in the background, and waitForLoad: false answers before the load ends', async () => {
    const front = await h.ok<Tab>('browser_open_tab', { url: h.site.url('/') })
    const back = await h.ok<Tab>('browser_open_tab', { url: h.site.url('/form'), active: false })
    expect(back).toMatchObject({ active: false, title: 'Form page' })
    const { tabs } = await h.ok<{ tabs: (Tab & { active: boolean; focusedWindow: boolean })[] }>(
      'browser_list_tabs',
    )
    expect(tabs.find((t) => t.tabId === front.tabId)).toMatchObject({ active: true, focusedWindow: true })
    const slow = await h.ok<Tab>('browser_navigate', {
      tabId: back.tabId,
      url: h.site.url('/slow'),
      waitForLoad: false,
    })
    expect(slow.status).toBe('loading')
  })

  it('browser_go_forward with no next page fails with not_found', async () => {
    const tab = await h.ok<Tab>('browser_open_tab', { url: h.site.url('/') })
    const err = await h.fails('browser_go_forward', { tabId: tab.tabId })
    expect(err).toMatchObject({ code: 'tool_error', category: 'not_found' })
    expect(err.message).toContain('no next page')
  })

  it('browser_focus_tab makes a tab the default target of later calls', async () => {
    const first = await h.ok<Tab>('browser_open_tab', { url: h.site.url('/form') })
    await h.ok<Tab>('browser_open_tab', { url: h.site.url('/long') })
    const focused = await h.ok<Tab>('browser_focus_tab', { tabId: first.tabId })
    expect(focused).toMatchObject({ tabId: first.tabId, active: true })
    const text = await h.ok<{ text: string }>('browser_get_text', { selector: 'h1' })
    expect(text.text).toBe('Sign up')
  })

  it('browser_close_tab closes a tab, and later calls on it fail with not_found', async () => {
    const tab = await h.ok<Tab>('browser_open_tab', { url: h.site.url('/') })
    expect(await h.ok('browser_close_tab', { tabId: tab.tabId })).toEqual({ closed: tab.tabId })
    const { tabs } = await h.ok<{ tabs: Tab[] }>('browser_list_tabs')
    expect(tabs.map((t) => t.tabId)).not.toContain(tab.tabId)
    const err = await h.fails('browser_get_text', { tabId: tab.tabId })
    expect(err).toMatchObject({ code: 'tool_error', category: 'not_found' })
    expect(err.message).toContain(`no tab with id ${tab.tabId}`)
    expect((await h.fails('browser_close_tab', { tabId: tab.tabId })).category).toBe('not_found')
  })

  it('refuses to script browser pages such as chrome://version with a clear message', async () => {
    const tab = await h.ok<Tab>('browser_open_tab', { url: h.site.url('/') })
    // The schema keeps agents from navigating to chrome:// themselves; the user (here: the test) can.
    await h.setTabUrl(tab.tabId, 'chrome://version')
    const err = await h.fails('browser_snapshot', { tabId: tab.tabId })
    expect(err).toMatchObject({ code: 'tool_error', category: 'validation' })
    expect(err.message).toContain('chrome://version')
    expect(err.message).toContain('may not read or control')
  })

  it('a navigation that does not finish in time fails with a timeout error', async () => {
    const tab = await h.ok<Tab>('browser_open_tab', { url: h.site.url('/') })
    const err = await h.fails('browser_navigate', {
      tabId: tab.tabId,
      url: h.site.url('/slow'),
      timeoutMs: 300,
    })
    expect(err).toMatchObject({ code: 'tool_error', category: 'timeout', retryable: true })
    expect(err.message).toContain('did not finish loading')
  })

  it('rejects unknown tool names with unknown_tool', async () => {
    const err = await h.fails('browser_run_shell', { code: '1' })
    expect(err).toMatchObject({ code: 'unknown_tool', category: 'validation' })
  })

  it('refuses javascript:, file: and chrome: URLs even when called without the daemon', async () => {
    for (const url of ['javascript:alert(1)', 'file:///etc/passwd', 'chrome://settings']) {
      const err = await h.fails('browser_navigate', { url })
      expect(err).toMatchObject({ code: 'tool_error', category: 'validation' })
      expect(err.message).toContain('only http(s) URLs and about:blank can be opened')
      expect((await h.fails('browser_open_tab', { url })).category).toBe('validation')
    }
  })

  it('takes back a debugger attachment left over from an earlier service-worker life', async () => {
    const tab = await h.ok<Tab>('browser_open_tab', { url: h.site.url('/form') })
    const sw = await h.browser.serviceWorker()
    await sw.evaluate(async (tabId) => {
      const { chrome } = globalThis as unknown as {
        chrome: { debugger: { attach(t: { tabId: number }, v: string): Promise<void> } }
      }
      await chrome.debugger.attach({ tabId }, '1.3')
    }, tab.tabId)
    expect(await h.ok('browser_click', { tabId: tab.tabId, selector: '#save' })).toContain(
      '- text: trusted click',
    )
  })

  it('extension_get_state reports version, tabs, debugger sessions and network captures', async () => {
    const tab = await h.ok<Tab>('browser_open_tab', { url: h.site.url('/') })
    await h.ok('browser_network_start', { tabId: tab.tabId })
    const state = await h.ok<{
      extensionId: string
      version: string
      tabs: number
      debuggerSessions: { tabId: number; holds: string[] }[]
      networkCaptures: { tabId: number; capturing: boolean }[]
      extension?: { connection?: { status: string } }
    }>('extension_get_state')
    expect(state.extensionId).toBe('acfdhdlkhjaeoaphklaaombmbgodghoh')
    expect(state.version).toBe('0.1.0')
    expect(state.tabs).toBeGreaterThan(1)
    expect(state.debuggerSessions).toContainEqual(
      expect.objectContaining({ tabId: tab.tabId, holds: ['network'] }),
    )
    expect(state.networkCaptures).toContainEqual(
      expect.objectContaining({ tabId: tab.tabId, capturing: true }),
    )
    // No daemon runs in this file: the rest of the extension says so.
    expect(state.extension?.connection?.status).not.toBe('connected')
    await h.ok('browser_network_stop', { tabId: tab.tabId })
  })

  it('extension_get_logs returns recent entries, filtered by level and limited', async () => {
    const { entries } = await h.ok<{ entries: { ts: number; level: string; message: string }[] }>(
      'extension_get_logs',
    )
    expect(entries.some((e) => e.message.startsWith('browser_open_tab succeeded'))).toBe(true)
    const warnings = await h.ok<{ entries: { level: string; message: string }[] }>('extension_get_logs', {
      level: 'warning',
    })
    expect(warnings.entries.length).toBeGreaterThan(0)
    expect(warnings.entries.every((e) => e.level === 'warning' || e.level === 'error')).toBe(true)
    expect(warnings.entries.some((e) => e.message.includes('browser_go_forward failed: tab'))).toBe(true)
    expect((await h.ok<{ entries: unknown[] }>('extension_get_logs', { limit: 2 })).entries).toHaveLength(2)
  })

  // Last: the reload restarts the service worker.
  it('extension_reload answers first, then reloads the extension, which comes back working', async () => {
    const before = await h.browser.serviceWorker()
    expect(await h.ok('extension_reload')).toEqual({ reloading: true, inMs: 300 })
    await expect
      .poll(() => h.browser.context.serviceWorkers().includes(before), { timeout: 10_000 })
      .toBe(false)
    await expect.poll(async () => (await h.call('browser_list_tabs')).ok, { timeout: 15_000 }).toBe(true)
  })
})
