/**
 * The settle wait after an action: until the requests the action started have answered, the page's
 * DOM has been still for a moment and no navigation is loading (or a dialog opened, or the cap).
 *
 * It waits only for what the action started. A request the page had open before the action (a long
 * poll, a push channel) is not the action's, and neither is the same channel opened again while the
 * action runs: a long poll the server answers because the action's POST changed its state is re-opened
 * by the page at once, and that new request stays open until the next change. A response that keeps
 * streaming (server events over fetch) counts once its headers are in. A node that keeps changing on
 * its own (a clock) does not keep the DOM from being still. What held the wait is told: an agent reads
 * `Waited 1.4 s for: POST /api/read (1.3 s)` when it took more than a second.
 */
import { openDialog } from './debuggerSession'
import { sleep } from './errors'
import type { RequestWatch } from './requestWatch'
import { getTab, waitForLoad } from './tabLookup'

/**
 * The settle wait's bounds: long enough for a page's fetch and render, short enough to stay cheap; a
 * wait past `reportMs` is told in the result.
 */
export const SETTLE = { maxMs: 3_000, quietMs: 150, pollMs: 50, loadMs: 15_000, reportMs: 1_000 }
export interface PageState {
  documentId: string
  url: string
  quietMs: number
  loading: boolean
}

/** What one wait took, and what held it (each reason with the time it held). */
export interface SettleOutcome {
  ms: number
  capped: boolean
  held: Map<string, number>
  /** What was still holding when the cap ended the wait. */
  pending: string[]
  /** The page as last read, when the wait ended because it had settled. */
  page?: PageState
}

/**
 * Waits for the page to settle after an action; `state` reads the page (undefined while it cannot,
 * e.g. navigating), `requests` is the action's watch (undefined without a debugger session). The first
 * look is after `firstLookMs` (an action's effects start a moment after it returns; a page that has
 * just finished loading is looked at at once). `until`, when given, ends the DOM's quiet wait early
 * once it holds.
 */
export async function settle(
  tabId: number,
  state: () => Promise<PageState | undefined>,
  requests: RequestWatch | undefined,
  firstLookMs: number = SETTLE.pollMs,
  until?: () => Promise<boolean>,
): Promise<SettleOutcome> {
  const started = Date.now()
  const held = new Map<string, number>()
  let last = started
  let reasons: string[] = []
  const account = () => {
    const now = Date.now()
    for (const reason of reasons) held.set(reason, (held.get(reason) ?? 0) + (now - last))
    last = now
  }
  const outcome = (capped: boolean, page?: PageState): SettleOutcome => {
    account()
    return {
      ms: Date.now() - started,
      capped,
      held,
      pending: capped ? reasons : [],
      ...(page ? { page } : {}),
    }
  }
  if (firstLookMs > 0) await sleep(firstLookMs)
  for (;;) {
    account()
    if (openDialog(tabId)) return outcome(false)
    const tab = await getTab(tabId)
    if (tab.status === 'loading') {
      reasons = ['a navigation']
      await waitForLoad(tabId, SETTLE.loadMs).catch(() => undefined)
      account()
      requests?.clear()
    }
    const page = await state()
    reasons = [
      ...(requests?.holding() ?? []),
      ...(!page || page.loading ? ['the page loading'] : []),
      ...(page && page.quietMs < SETTLE.quietMs ? ['DOM changes'] : []),
    ]
    if (!reasons.length) return outcome(false, page)
    // The page shows what the caller waits for (a workflow step's post-condition) and nothing the
    // action started is still loading: the DOM's quiet moment would add nothing but time.
    if (until && page && reasons.length === 1 && reasons[0] === 'DOM changes' && (await until()))
      return outcome(false, page)
    if (Date.now() - started > SETTLE.maxMs) return outcome(true)
    await sleep(SETTLE.pollMs)
  }
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`

/** The result's line on a wait longer than a second (or one the cap ended); undefined otherwise. */
export function describeWait(outcome: SettleOutcome): string | undefined {
  if (!outcome.capped && outcome.ms < SETTLE.reportMs) return undefined
  const reasons = [...outcome.held]
    .filter(([, ms]) => ms >= SETTLE.pollMs)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 4)
    .map(([reason, ms]) => `${reason} (${seconds(ms)})`)
  const what = reasons.length ? ` for: ${reasons.join(', ')}` : ''
  if (!outcome.capped) return `Waited ${seconds(outcome.ms)}${what}.`
  const open = outcome.pending.length ? `; still waiting on: ${outcome.pending.join(', ')}` : ''
  return `Stopped waiting at the ${seconds(SETTLE.maxMs)} cap${what}${open}.`
}
