import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startBuiltinsHarness, type BuiltinsHarness } from './harness'

// Actions that settle and report, in real Chromium with the real extension.
describe('built-in actions wait for the page to settle and report what changed', () => {
  let h: BuiltinsHarness
  beforeAll(async () => {
    h = await startBuiltinsHarness()
    // A loaded machine may be slow to answer the page's fetch: the settle bound is generous here (it
    // only ends a wait for a page that never settles; these pages do).
    await (
      await h.browser.serviceWorker()
    ).evaluate(() => {
      const hook = (
        globalThis as unknown as { __bridgeTest: { SETTLE: { maxMs: number; reportMs: number } } }
      ).__bridgeTest
      hook.SETTLE.maxMs = 20_000
      // The results below are compared whole: a slow machine's wait is not told in them.
      hook.SETTLE.reportMs = 20_000
    })
  })
  afterAll(async () => {
    await h?.close()
  })

  const open = async (path: string) =>
    (await h.ok<{ tabId: number }>('browser_open_tab', { url: h.site.url(path) })).tabId

  it('a click that starts a fetch returns once the content it loads is on the page, as a diff with refs', async () => {
    const tabId = await open('/app')
    const result = await h.ok<string>('browser_click', { tabId, selector: '#load' })
    // Not "Loading…": the 300 ms request and the DOM changes after it were waited for.
    expect(result).toMatch(/^Changed on the page \(new and changed lines, under their parents\):\n- main:\n/)
    expect(result).toMatch(/^ {2}- listitem: Beta button "Approve Beta" \[ref=e\d+\]$/m)
    expect(result).toContain('Gone: - button "Load projects"')
    expect(result).not.toContain('Loading')
    // Only what changed: the heading that stayed is not repeated.
    expect(result).not.toContain('heading "Projects"')
    const ref = /button "Approve Beta" \[ref=(e\d+)\]/.exec(result)![1]!
    expect(await h.ok('browser_click', { tabId, ref })).toBe('No change on the page.')
  })

  it('snapshot: "full" returns the whole page after the action, and "none" only the action\'s own lines', async () => {
    const tabId = await open('/app')
    const full = await h.ok<string>('browser_click', { tabId, selector: '#load', snapshot: 'full' })
    expect(full.split('\n').slice(0, 2)).toEqual([`URL: ${h.site.url('/app')}`, 'Title: App'])
    expect(full).toContain(' - heading "Projects" [level=1]')
    expect(full).toMatch(/- listitem: Alpha button "Approve Alpha" \[ref=e\d+\]/)
    const other = await open('/form')
    expect(await h.ok('browser_click', { tabId: other, selector: '#save', snapshot: 'none' })).toBe('Done.')
  })

  it('a click that opens a dialog returns at once naming it, and the answer lets the page go on', async () => {
    // A URL of its own, so the page found below is this tab's.
    const tabId = await open('/app?dialog')
    // Playwright (which launched this Chromium) answers dialogs itself unless a listener exists.
    ;(await h.pageAt(h.site.url('/app?dialog'))).on('dialog', () => undefined)
    const started = Date.now()
    const result = await h.ok<string>('browser_click', { tabId, selector: '#confirm' })
    expect(Date.now() - started).toBeLessThan(20_000)
    expect(result).toContain('A dialog opened; the page waits for it.')
    expect(result).toContain('"type":"confirm","message":"Delete it?","answerWith":"browser_handle_dialog"')
    await h.ok('browser_handle_dialog', { tabId, accept: true })
    expect((await h.ok<{ text: string }>('browser_get_text', { tabId, selector: '#said' })).text).toBe(
      'deleted',
    )
  })

  it('a key that submits a form returns the new page in full', async () => {
    const tabId = await open('/form')
    await h.ok('browser_type', { tabId, selector: '#email', text: 'ada@example.com' })
    const result = await h.ok<string>('browser_press_key', { tabId, key: 'Enter' })
    expect(result).toMatch(/^URL: \S+\/submitted\?email=ada%40example\.com/m)
    expect(result).toContain('- listitem: email=ada@example.com')
  })
})
