/**
 * The tab a built-in call's approval showed, and the origin it showed there. The daemon knows no tab
 * for built-in tools, so the extension looks it up when the approval arrives (the tab the call names,
 * or the active one it would act on), the side panel shows it, and the call, once approved, runs only
 * if that tab still shows the same origin: a tab that navigated to another site meanwhile runs
 * nothing. Kept in session storage (keyed by the approval id, which is the call's dispatch id), so a
 * service worker restart between the approval and the dispatch keeps it.
 */
import type { ApprovalTab } from '../../src/protocol'
import { SessionRecord } from '../lib/sessionStorage'

/** Approval id -> the origin its card showed; oldest first. */
const pins = new SessionRecord<Record<string, string>>('bridge.approvedOrigins', () => ({}))
/** Approvals kept at most (a denied or expired one is never taken): the oldest go first. */
const MAX_KEPT = 200

export function originOf(url: string | undefined): string | undefined {
  try {
    const origin = new URL(url ?? '').origin
    return origin === 'null' ? undefined : origin
  } catch {
    return undefined
  }
}

/** Remembers the origin an approval showed; returns the tab as the card shows it. */
export async function pinApprovedTab(id: string, tab: chrome.tabs.Tab): Promise<ApprovalTab | undefined> {
  if (tab.id === undefined) return undefined
  const origin = originOf(tab.url)
  if (origin !== undefined)
    await pins.update((all) => {
      // The first pin holds: the data-flow guard pins the origin it checked before the approval shows.
      if (all[id] !== undefined) return
      all[id] = origin
      const ids = Object.keys(all)
      for (const old of ids.slice(0, Math.max(0, ids.length - MAX_KEPT))) delete all[old]
    })
  return { tabId: tab.id, title: tab.title ?? '', url: tab.url ?? '' }
}

/** The origin the approval of this call showed (once: it is forgotten as it is read). */
export function takeApprovedOrigin(id: string): Promise<string | undefined> {
  return pins.update((all) => {
    const origin = all[id]
    delete all[id]
    return origin
  })
}

/** An approval that ended without a call (denied, expired): its pin goes. */
export async function forgetApprovedTab(id: string): Promise<void> {
  await pins.update((all) => void delete all[id])
}
