import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CLICKABLE_TARGETS } from '../../fixtures/clickable/corpus.mjs'
import { startBuiltinsHarness, type BuiltinsHarness } from './harness'

/** The newest line of `text` matching `pattern` that carries a ref (as an agent reads the outline). */
function lineWithRef(text: string, pattern: RegExp): string | undefined {
  return text.split('\n').findLast((line) => pattern.test(line) && /\[ref=/.test(line))
}

// The clickable corpus (test/fixtures/clickable/corpus.mjs) in real Chromium with the real extension:
// each thing a person can click has a ref on the line that names it, and a click on that ref does what
// the person's click does, as the page itself records it.
describe('everything a person can click has a ref, and clicking the ref does what their click does', () => {
  let h: BuiltinsHarness
  let tabId: number
  beforeAll(async () => {
    h = await startBuiltinsHarness()
    tabId = (await h.ok<{ tabId: number }>('browser_open_tab', { url: h.site.url('/clickable') })).tabId
  })
  afterAll(async () => {
    await h?.close()
  })

  it.each(CLICKABLE_TARGETS)('$pattern: $id', async (target) => {
    // A network capture holds the tab's debugger session, so the snapshot reads the page's listeners.
    if (target.needsDebugger) await h.ok('browser_network_start', { tabId })
    const snap = await h.ok<string>('browser_snapshot', { tabId })
    if (target.needsDebugger) await h.ok('browser_network_stop', { tabId })
    const line = lineWithRef(snap, new RegExp(target.line))
    expect(line, `no ref on a line naming ${target.line} in:\n${snap}`).toBeDefined()
    const ref = /\[ref=(e\d+)\]/.exec(line!)![1]!
    await h.ok('browser_click', { tabId, ref })
    const log = await h.ok<{ text: string }>('browser_get_text', { tabId, selector: '#log' })
    expect(log.text.split(/[:,] /)).toContain(target.id)
    await expect.poll(() => h.site.clicked(), { timeout: 10_000 }).toContain(target.id)
  })

  it('keeps the outline compact: one ref per clickable thing on its own line, none on the cells of a table nobody clicks', async () => {
    const snap = await h.ok<string>('browser_snapshot', { tabId })
    // A mail row: its ref on the row line, then its checkbox's; the cells under the row's pointer get none.
    const row = snap.split('\n').find((l) => l.includes('Budget review'))!
    expect(row).toMatch(
      /^ *- row \[ref=e\d+\]: checkbox "Select Grace Hopper" \[ref=e\d+\] \| Grace Hopper \| Budget review \| Nov 25$/,
    )
    // A card is one line, named by its content.
    expect(snap).toMatch(/^ *- clickable "Lighthouse Sea view, two nights" \[ref=e\d+\]$/m)
    // The switch's label carries the ref for its hidden checkbox, with the checkbox's state.
    expect(snap).toMatch(/^ *- checkbox "Dark mode" \[checked\] \[ref=e\d+\]$/m)
    // The table of prices has no handler and no pointer: no refs.
    const prices = snap.slice(snap.indexOf('table "Prices"'), snap.indexOf('heading "Log"'))
    expect(prices).toContain('Tea | 2.50')
    expect(prices).not.toContain('[ref=')
  })
})
