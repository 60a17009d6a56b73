/**
 * The tab a built-in call's approval showed, and the origin it showed there. The daemon knows no tab
 * for built-in tools, so the extension looks it up when the approval arrives (the tab the call names,
 * or the active one it would act on), the side panel shows it, and the call, once approved, runs only
 * if that tab still shows the same origin: a tab that navigated to another site meanwhile runs
 * nothing. Kept in session storage (keyed by the approval id, which is the call's dispatch id), so a
 * service worker restart between the approval and the dispatch keeps it.
 */
import type { ApprovalTab } from '../../src/protocol'

const STORAGE_KEY = 'bridge.approvedOrigins'
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

async function load(): Promise<Record<string, string>> {
  const stored = (await chrome.storage.session.get(STORAGE_KEY))[STORAGE_KEY] as
    Record<string, string> | undefined
  return stored ?? {}
}

/** Remembers the origin an approval showed; returns the tab as the card shows it. */
export async function pinApprovedTab(id: string, tab: chrome.tabs.Tab): Promise<ApprovalTab | undefined> {
  if (tab.id === undefined) return undefined
  const origin = originOf(tab.url)
  if (origin !== undefined) {
    const pins = await load()
    // The first pin holds: the data-flow guard pins the origin it checked before the approval shows.
    if (pins[id] !== undefined) return { tabId: tab.id, title: tab.title ?? '', url: tab.url ?? '' }
    pins[id] = origin
    const ids = Object.keys(pins)
    for (const old of ids.slice(0, Math.max(0, ids.length - MAX_KEPT))) delete pins[old]
    await chrome.storage.session.set({ [STORAGE_KEY]: pins })
  }
  return { tabId: tab.id, title: tab.title ?? '', url: tab.url ?? '' }
}

/** The origin the approval of this call showed (once: it is forgotten as it is read). */
export async function takeApprovedOrigin(id: string): Promise<string | undefined> {
  const pins = await load()
  const origin = pins[id]
  if (origin === undefined) return undefined
  delete pins[id]
  await chrome.storage.session.set({ [STORAGE_KEY]: pins })
  return origin
}

/** An approval that ended without a call (denied, expired): its pin goes. */
export async function forgetApprovedTab(id: string): Promise<void> {
  const pins = await load()
  if (!(id in pins)) return
  delete pins[id]
  await chrome.storage.session.set({ [STORAGE_KEY]: pins })
}
