import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startBuiltinsHarness, type BuiltinsHarness } from './harness'

interface Tab {
  tabId: number
  url: string
  title: string
}
interface ConsoleEntry {
  level: string
  text: string
  timestamp: number
  url?: string
  line?: number
}
interface RequestRow {
  method: string
  url: string
  status: number | null
  failed: boolean
  mimeType: string | null
  type: string
  durationMs: number | null
  requestHeaders?: Record<string, string>
  responseHeaders?: Record<string, string>
  withheld?: string[]
}

const PNG_SIGNATURE = 'iVBORw0KGgo'

/** Width and height from a base64 PNG's IHDR chunk. */
function pngSize(base64: string): { width: number; height: number } {
  const bytes = Buffer.from(base64, 'base64')
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) }
}

describe('built-in devtools, storage, dialog and download tools in real Chromium', () => {
  let h: BuiltinsHarness
  beforeAll(async () => {
    h = await startBuiltinsHarness()
  })
  afterAll(async () => {
    await h?.close()
  })

  const open = (path: string) => h.ok<Tab>('browser_open_tab', { url: h.site.url(path) })
  /** Waits until the extension reports a dialog open in the tab, as extension_get_state shows it. */
  const dialogOpen = (tabId: number) =>
    expect
      .poll(
        async () => {
          const state = await h.ok<{ debuggerSessions: { tabId: number; dialogOpen: boolean }[] }>(
            'extension_get_state',
          )
          return state.debuggerSessions.find((s) => s.tabId === tabId)?.dialogOpen
        },
        { timeout: 5_000 },
      )
      .toBe(true)

  it('browser_screenshot returns a PNG image of the viewport, the full page or one element', async () => {
    const tab = await open('/long')
    const shot = await h.ok<{ type: string; data: string; mimeType: string }>('browser_screenshot', {
      tabId: tab.tabId,
    })
    expect(shot.type).toBe('image')
    expect(shot.mimeType).toBe('image/png')
    expect(shot.data.startsWith(PNG_SIGNATURE)).toBe(true)
    const viewport = pngSize(shot.data)
    const full = pngSize(
      (
        await h.ok<{ data: string }>('browser_screenshot', {
          tabId: tab.tabId,
          fullPage: true,
          maxSide: 16_384,
        })
      ).data,
    )
    expect(full.height).toBeGreaterThan(5000)
    expect(full.height).toBeGreaterThan(viewport.height)
    const element = pngSize(
      (await h.ok<{ data: string }>('browser_screenshot', { tabId: tab.tabId, selector: '#box' })).data,
    )
    expect(element.height).toBe(100)
    expect(element.width).toBeLessThanOrEqual(viewport.width)
  })

  it('browser_screenshot works on a background tab (headless Chromium paints every tab)', async () => {
    const back = await open('/')
    await open('/form')
    const shot = await h.ok<{ data: string }>('browser_screenshot', { tabId: back.tabId })
    expect(shot.data.startsWith(PNG_SIGNATURE)).toBe(true)
  })

  it('browser_console_logs returns messages logged before the call, with levels, sources and filters', async () => {
    const tab = await open('/console')
    await h.ok('browser_wait_for', { timeoutMs: 300 })
    const { entries, total } = await h.ok<{ entries: ConsoleEntry[]; total: number }>(
      'browser_console_logs',
      { tabId: tab.tabId },
    )
    const texts = entries.map((e) => `${e.level}: ${e.text}`)
    expect(texts).toContain('info: hello from fixture 42 Object')
    expect(texts).toContain('warning: careful now')
    expect(texts).toContain('error: broken thing')
    expect(texts).toContain('debug: debug detail')
    expect(
      texts.some(
        (t) =>
          t.startsWith('error: Error: boom in timer') || t.startsWith('error: Uncaught Error: boom in timer'),
      ),
    ).toBe(true)
    expect(total).toBe(entries.length)
    const hello = entries.find((e) => e.text.startsWith('hello'))
    expect(hello?.url).toBe(h.site.url('/console'))
    expect(hello?.timestamp).toBeGreaterThan(Date.now() - 60_000)
    const errors = await h.ok<{ entries: ConsoleEntry[] }>('browser_console_logs', {
      tabId: tab.tabId,
      level: 'warning',
    })
    expect(errors.entries.map((e) => e.level).sort()).toEqual(['error', 'error', 'warning'])
    const found = await h.ok<{ entries: ConsoleEntry[] }>('browser_console_logs', {
      tabId: tab.tabId,
      textContains: 'careful',
    })
    expect(found.entries.map((e) => e.text)).toEqual(['careful now'])
    expect(
      (await h.ok<{ entries: ConsoleEntry[] }>('browser_console_logs', { tabId: tab.tabId, limit: 1 }))
        .entries,
    ).toHaveLength(1)
  })

  it('browser_network_* records requests with redacted credentials and exports them as HAR', async () => {
    const tab = await open('/')
    expect(await h.ok('browser_network_start', { tabId: tab.tabId })).toEqual({
      tabId: tab.tabId,
      capturing: true,
    })
    await h.ok('browser_navigate', { tabId: tab.tabId, url: h.site.url('/network') })
    await h.ok('browser_wait_for', { tabId: tab.tabId, text: 'got 3 items' })
    await h.ok('browser_wait_for', { timeoutMs: 300 })

    const list = await h.ok<{ capturing: boolean; total: number; requests: RequestRow[] }>(
      'browser_network_requests',
      { tabId: tab.tabId, includeHeaders: true },
    )
    expect(list.capturing).toBe(true)
    const api = list.requests.find((r) => r.url === h.site.url('/api/data?x=[redacted]'))
    expect(api).toMatchObject({
      method: 'GET',
      status: 200,
      failed: false,
      mimeType: 'application/json',
      type: 'Fetch',
    })
    expect(api?.requestHeaders?.Authorization).toBe('[redacted]')
    // Values not known to be harmless are named, not shown.
    expect(api?.withheld).toEqual(['query x', 'request header Authorization'])
    expect(JSON.stringify(list)).not.toContain('api=1')
    expect(JSON.stringify(list)).not.toContain('top-secret-token')
    expect(list.requests.find((r) => r.url === h.site.url('/missing'))?.status).toBe(404)
    expect(list.requests.find((r) => r.url === 'http://127.0.0.1:1/blocked')).toMatchObject({
      failed: true,
      status: null,
      errorText: 'net::ERR_UNSAFE_PORT',
    })
    expect(list.requests.find((r) => r.url === h.site.url('/network'))).toMatchObject({
      type: 'Document',
      status: 200,
    })

    const filtered = await h.ok<{ requests: RequestRow[] }>('browser_network_requests', {
      tabId: tab.tabId,
      urlContains: '/api/',
    })
    expect(filtered.requests.map((r) => r.url)).toEqual([h.site.url('/api/data?x=[redacted]')])
    expect(filtered.requests[0]?.requestHeaders).toBeUndefined()

    const har = await h.ok<{
      log: {
        version: string
        creator: { name: string }
        entries: {
          request: { url: string; headers: { name: string; value: string }[]; queryString: unknown[] }
          response: { status: number }
        }[]
      }
    }>('browser_network_export_har', { tabId: tab.tabId })
    expect(har.log.version).toBe('1.2')
    expect(har.log.creator.name).toBe('bridge')
    const entry = har.log.entries.find((e) => e.request.url === h.site.url('/api/data?x=[redacted]'))
    expect(entry?.response.status).toBe(200)
    expect(entry?.request.queryString).toEqual([{ name: 'x', value: '[redacted]' }])
    expect(entry?.request.headers).toContainEqual({ name: 'Authorization', value: '[redacted]' })
    expect(JSON.stringify(har)).not.toContain('top-secret-token')

    const stopped = await h.ok<{ capturing: boolean; requests: number }>('browser_network_stop', {
      tabId: tab.tabId,
    })
    expect(stopped.capturing).toBe(false)
    expect(stopped.requests).toBe(list.total)
    await h.ok('browser_reload', { tabId: tab.tabId })
    const after = await h.ok<{ capturing: boolean; total: number }>('browser_network_requests', {
      tabId: tab.tabId,
    })
    expect(after).toMatchObject({ capturing: false, total: list.total })
  })

  it('browser_network_requests without a recording says how to start one', async () => {
    const tab = await open('/')
    const err = await h.fails('browser_network_requests', { tabId: tab.tabId })
    expect(err).toMatchObject({ code: 'tool_error', category: 'not_found' })
    expect(err.message).toContain('call browser_network_start first')
  })

  it('browser_get_cookies lists cookies for the tab page and reveals values only when asked', async () => {
    const tab = await open('/cookies')
    const hidden = await h.ok<{
      url: string
      cookies: { name: string; httpOnly: boolean; value?: string }[]
    }>('browser_get_cookies', { tabId: tab.tabId })
    expect(hidden.url).toBe(h.site.url('/cookies'))
    expect(hidden.cookies.map((c) => c.name)).toEqual(expect.arrayContaining(['session', 'theme']))
    expect(hidden.cookies.find((c) => c.name === 'session')?.httpOnly).toBe(true)
    expect(JSON.stringify(hidden)).not.toContain('abc123secret')
    const shown = await h.ok<{ cookies: { name: string; value?: string }[] }>('browser_get_cookies', {
      tabId: tab.tabId,
      name: 'session',
      includeValues: true,
    })
    expect(shown.cookies).toEqual([
      expect.objectContaining({ name: 'session', value: 'abc123secret', session: true }),
    ])
    const byUrl = await h.ok<{ cookies: unknown[] }>('browser_get_cookies', { url: h.site.url('/anything') })
    expect(byUrl.cookies.length).toBe(hidden.cookies.length)
  })

  it('browser_local_storage_get reads one key or all keys, local or session, cutting long values', async () => {
    const tab = await open('/storage')
    const all = await h.ok<{ origin: string; storage: string; count: number; items: Record<string, string> }>(
      'browser_local_storage_get',
      { tabId: tab.tabId },
    )
    expect(all.origin).toBe(new URL(h.site.url('/')).origin)
    expect(all.count).toBe(2)
    expect(all.items.theme).toBe('dark')
    expect(all.items.big).toMatch(/^x{10000} \[truncated: showing 10000 of 12000 characters\]$/)
    expect(
      (
        await h.ok<{ items: Record<string, string | null> }>('browser_local_storage_get', {
          tabId: tab.tabId,
          key: 'nope',
        })
      ).items,
    ).toEqual({ nope: null })
    const session = await h.ok<{ items: Record<string, string> }>('browser_local_storage_get', {
      tabId: tab.tabId,
      storage: 'session',
    })
    expect(session.items).toEqual({ step: '3' })
  })

  it('page tools fail at once with a hint while a dialog blocks the page', async () => {
    const tab = await open('/dialog?case=blocked')
    const page = await h.pageAt(h.site.url('/dialog?case=blocked'))
    page.on('dialog', () => undefined)
    await h.ok('browser_click', { tabId: tab.tabId, selector: '#ask' })
    await dialogOpen(tab.tabId)
    const blocked = await h.fails('browser_get_text', { tabId: tab.tabId, selector: '#out' })
    // The dialog is known, so the call fails at once instead of waiting for the page to answer.
    expect(blocked).toMatchObject({ category: 'validation' })
    expect(blocked.message).toContain('answer it with browser_handle_dialog first')
    await h.ok('browser_handle_dialog', { tabId: tab.tabId, accept: true })
    expect(
      (await h.ok<{ text: string }>('browser_get_text', { tabId: tab.tabId, selector: '#out' })).text,
    ).toBe('confirmed')
  }, 40_000)

  it('browser_handle_dialog accepts or dismisses an open dialog, types into prompts, and says when none is open', async () => {
    const tab = await open('/dialog?case=handle')
    const page = await h.pageAt(h.site.url('/dialog?case=handle'))
    // Playwright auto-dismisses dialogs unless a listener exists; this one leaves them open for the tool.
    page.on('dialog', () => undefined)
    await h.ok('browser_click', { tabId: tab.tabId, selector: '#ask' })
    await dialogOpen(tab.tabId)
    const handled = await h.ok<{ handled: boolean; type: string | null; message: string | null }>(
      'browser_handle_dialog',
      { tabId: tab.tabId, accept: false },
    )
    expect(handled).toEqual({
      handled: true,
      accepted: false,
      type: 'confirm',
      message: 'Delete everything?',
    })
    expect(
      (await h.ok<{ text: string }>('browser_get_text', { tabId: tab.tabId, selector: '#out' })).text,
    ).toBe('cancelled')

    await h.ok('browser_click', { tabId: tab.tabId, selector: '#name' })
    await dialogOpen(tab.tabId)
    expect(
      await h.ok('browser_handle_dialog', { tabId: tab.tabId, accept: true, promptText: 'Ada' }),
    ).toMatchObject({ type: 'prompt', message: 'Your name?' })
    expect(
      (await h.ok<{ text: string }>('browser_get_text', { tabId: tab.tabId, selector: '#out' })).text,
    ).toBe('name: Ada')

    const none = await h.fails('browser_handle_dialog', { tabId: tab.tabId, accept: true })
    expect(none).toMatchObject({ code: 'tool_error', category: 'not_found' })
    expect(none.message).toContain('no JavaScript dialog is open')
  })

  it('browser_list_downloads lists a finished download', async () => {
    const tab = await open('/download')
    await h.ok('browser_click', { tabId: tab.tabId, selector: '#dl' })
    let downloads: { url: string; filename: string; state: string; totalBytes: number }[] = []
    for (let i = 0; i < 50; i++) {
      ;({ downloads } = await h.ok<{ downloads: typeof downloads }>('browser_list_downloads', {
        state: 'complete',
      }))
      if (downloads.length) break
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    expect(downloads[0]).toMatchObject({ url: h.site.url('/file.txt'), state: 'complete' })
    expect(
      (await h.ok<{ downloads: unknown[] }>('browser_list_downloads', { filenameContains: 'no-such-file' }))
        .downloads,
    ).toEqual([])
  })
})
