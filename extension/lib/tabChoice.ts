/**
 * Which tab runs a tool call (DESIGN.md section 8): ready tabs only; the active tab of the focused
 * window first, then any active tab, then the most recently focused. The dispatcher walks this order
 * and falls back to the next tab when one turns out not ready.
 */
export interface TabCandidate {
  tabId: number
  ready: boolean
  active: boolean
  windowFocused: boolean
  /** ms since epoch the tab last became active in a focused window (0 if never seen). */
  lastFocusedAt: number
}

export function rankTabs(tabs: readonly TabCandidate[]): number[] {
  const rank = (t: TabCandidate): number => (t.active && t.windowFocused ? 0 : t.active ? 1 : 2)
  return tabs
    .filter((t) => t.ready)
    .slice()
    .sort((a, b) => rank(a) - rank(b) || b.lastFocusedAt - a.lastFocusedAt || a.tabId - b.tabId)
    .map((t) => t.tabId)
}
