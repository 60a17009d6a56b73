/**
 * The data-flow guard's questions before dispatch, each pinning the origin it names for the call's
 * dispatchId (../builtins/approvedTabs.ts): the call then runs on that origin or not at all, so a tab
 * that navigates after the check cannot take data the guard did not check it for.
 * - `tool.sinkOrigin`: the origin a call would act on, the tab it names or the one it would take, as
 *   the approval of a built-in shows it.
 * - `tab.origin`: the origin a tab shows, the one named or the active one (where a workflow run
 *   starts); a closed or unknown tab has none.
 */
import { BROWSER_PLUGIN } from '../../src/protocol'
import { builtinTabOf } from '../builtins'
import { originOf, pinApprovedTab } from '../builtins/approvedTabs'
import { rankTabs } from '../lib/tabChoice'
import { resolveTab } from '../builtins/tabLookup'
import type { TabTracker } from './tabTracker'

export async function sinkOriginOf(
  params: { dispatchId: string; plugin: string; tool: string; input: unknown },
  tracker: TabTracker,
): Promise<{ origin?: string }> {
  let tab: chrome.tabs.Tab | undefined
  if (params.plugin === BROWSER_PLUGIN) tab = await builtinTabOf(params.tool, params.input)
  else {
    await tracker.refreshFocus()
    const first = rankTabs(tracker.candidates(params.plugin).filter((c) => c.ready))[0]
    if (first !== undefined) tab = await chrome.tabs.get(first).catch(() => undefined)
  }
  if (!tab) return {}
  await pinApprovedTab(params.dispatchId, tab)
  const origin = originOf(tab.url)
  return origin ? { origin } : {}
}

export async function tabOriginOf(params: {
  tabId?: number
  dispatchId?: string
}): Promise<{ origin?: string }> {
  const tab = await resolveTab(params.tabId).catch(() => undefined)
  if (!tab) return {}
  if (params.dispatchId !== undefined) await pinApprovedTab(params.dispatchId, tab)
  const origin = originOf(tab.url)
  return origin ? { origin } : {}
}
