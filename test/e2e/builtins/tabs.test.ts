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

  it('browser_list_tabs lists open tabs and filters by URL', async () => {
    const { tabs } = await h.ok<{ tabs: (Tab & { focusedWindow: boolean })[] }>('browser_list_tabs')
    expect(tabs.some((t) => t.title === 'Fixture home')).toBe(true)
    const { tabs: only } = await h.ok<{ tabs: Tab[] }>('browser_list_tabs', { urlContains: '127.0.0.1' })
    expect(only.length).toBeGreaterThan(0)
    expect(only.every((t) => t.url.includes('127.0.0.1'))).toBe(true)
  })

  it('browser_navigate loads a URL in the active tab; back, forward and reload follow history', async () => {
    const start = await h.ok<Tab>('browser_open_tab', { url: h.site.url('/') })
    const nav = await h.ok<Tab>('browser_navigate', { url: h.site.url('/form') })
    expect(nav).toMatchObject({ tabId: start.tabId, title: 'Form page', status: 'complete' })
    const back = await h.ok<Tab>('browser_go_back', { tabId: start.tabId })
    expect(back.title).toBe('Fixture home')
    const forward = await h.ok<Tab>('browser_go_forward', { tabId: start.tabId })
    expect(forward.title).toBe('Form page')
    const reloaded = await h.ok<Tab>('browser_reload', { tabId: start.tabId, bypassCache: true })
    expect(reloaded).toMatchObject({ title: 'Form page', status: 'complete' })
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
    const err = await h.fails('browser_navigate', { tabId: tab.tabId, url: h.site.url('/slow'), timeoutMs: 300 })
    expect(err).toMatchObject({ code: 'tool_error', category: 'timeout', retryable: true })
    expect(err.message).toContain('did not finish loading')
  })

  it('rejects unknown tool names with unknown_tool', async () => {
    const err = await h.fails('browser_evaluate', { code: '1' })
    expect(err).toMatchObject({ code: 'unknown_tool', category: 'validation' })
  })
})
