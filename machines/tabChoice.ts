/**
 * The tab an approved call will run in, chosen before the user is asked so the approval can name it:
 * the extension ranks its ready tabs as it would pick them (`TabInfo.rank`, DESIGN.md section 8),
 * and the daemon takes the first. Reports without ranks (an older extension) fall back to the first
 * ready tab.
 */
import type { TabInfo } from '../src/protocol'

export function chooseTab(tabs: readonly TabInfo[]): TabInfo | undefined {
  const ready = tabs.filter((tab) => tab.ready)
  const ranked = ready.filter((tab) => tab.rank !== undefined)
  if (ranked.length === 0) return ready[0]
  return ranked.reduce((best, tab) => ((tab.rank ?? 0) < (best.rank ?? 0) ? tab : best))
}
