import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SETTLE_VARIANTS } from '../../fixtures/clickable/settle.mjs'
import { startBuiltinsHarness, type BuiltinsHarness } from './harness'

interface SettleBounds {
  maxMs: number
  reportMs: number
}

// Clicks whose handler POSTs to the page's own server and then updates the page, beside the page's own
// traffic (test/fixtures/clickable/settle.mjs): the action waits for what it started and says what it
// waited for when that took long. Judged by what the result reports, never by the clock.
describe('an action waits for what it started, not for the page’s own traffic, and says what held it', () => {
  let h: BuiltinsHarness
  const setBounds = async (bounds: Partial<SettleBounds>) =>
    (await h.browser.serviceWorker()).evaluate((b) => {
      Object.assign(
        (globalThis as unknown as { __bridgeTest: { SETTLE: SettleBounds } }).__bridgeTest.SETTLE,
        b,
      )
    }, bounds)
  beforeAll(async () => {
    h = await startBuiltinsHarness()
  })
  afterAll(async () => {
    await h?.close()
  })

  const clickRow = async (variant: string, row: number) => {
    const { tabId } = await h.ok<{ tabId: number }>('browser_open_tab', {
      url: h.site.url(`/settle/${variant}`),
    })
    try {
      return await h.ok<string>('browser_click', { tabId, selector: `tr[data-id="${row}"]` })
    } finally {
      // Each page holds connections open; Chromium allows six per host.
      await h.ok('browser_close_tab', { tabId })
    }
  }

  it.each(SETTLE_VARIANTS)(
    'a POST click beside %s traffic settles on its own update, not at the cap',
    async (variant) => {
      // A generous cap, so a loaded machine cannot reach it on the action's own work (the page's traffic,
      // a re-opened long poll, an open stream, a ticking clock, held the old wait to any cap); every
      // wait is told, so the result says what this one waited for.
      await setBounds({ maxMs: 10_000, reportMs: 0 })
      const result = await clickRow(variant, 2)
      expect(result, result).toContain('- heading "Lunch on Friday" [level=2]')
      const waited = /\n(Waited|Stopped waiting) .*$/.exec(result)?.[0]
      expect(waited, result).toMatch(/^\nWaited \d+\.\d s/)
      // The action's own work (its POST, the DOM it changed; a status ping that started meanwhile and
      // answered at once may show), never the page's channels that stay open.
      const reasons = /for: (.*)\.$/.exec(waited!)?.[1]?.split(/, (?![^(]*\))/) ?? []
      for (const reason of reasons)
        expect(reason).toMatch(/^(POST \/settle-api\/read|DOM changes|GET \/settle-api\/ping) \(/)
    },
  )

  it('a wait longer than a second names the request that held it and for how long', async () => {
    await setBounds({ maxMs: 10_000, reportMs: 1_000 })
    const result = await clickRow('slow', 1)
    expect(result).toContain('- heading "Budget review" [level=2]')
    expect(result).toMatch(/\nWaited \d+\.\d s for: POST \/settle-api\/read \(\d+\.\d s\)/)
    const [, held] = /POST \/settle-api\/read \((\d+\.\d) s\)/.exec(result)!
    // The server answered after 1.5 s: the request held the wait at least that long.
    expect(Number(held)).toBeGreaterThanOrEqual(1.4)
  })

  it('a request the action opened that never answers ends the wait at the cap, and the result says so', async () => {
    await setBounds({ maxMs: 3_000, reportMs: 1_000 })
    const result = await clickRow('hang', 3)
    expect(result).toContain('- heading "Build is red" [level=2]')
    expect(result).toMatch(
      /\nStopped waiting at the 3\.0 s cap for: GET \/settle-api\/hang \(\d+\.\d s\).*; still waiting on: GET \/settle-api\/hang\.$/,
    )
  })
})
