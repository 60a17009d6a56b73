/** browser_list_tabs, browser_open_tab, browser_close_tab, browser_focus_tab and navigation. */
import type { Handlers } from './context'
import type { tabs as defs, BrowserToolInput } from '../../src/tools'
import type { BuiltinContext } from './context'
import { pageAfterLoad } from './actionReport'
import { adoptTab } from './agentGroups'
import { withDebugger } from './debuggerSession'
import { invalid, isRestrictedUrl, messageOf, notFound } from './errors'
import { getTab, resolveTab, tabIdOf, tabInfo, waitForLoad } from './tabLookup'

type In<K extends keyof typeof defs> = BrowserToolInput<(typeof defs)[K]>

const DEFAULT_LOAD_TIMEOUT_MS = 20_000

async function settle(
  tabId: number,
  waitForLoadFlag: boolean | undefined,
  timeoutMs: number | undefined,
  ctx: BuiltinContext,
) {
  if (waitForLoadFlag === false) return tabInfo(await getTab(tabId))
  const timeout = timeoutMs ?? DEFAULT_LOAD_TIMEOUT_MS
  // Long loads report progress so the daemon's 30 s inactivity timeout does not cut them off.
  const ticker = setInterval(() => ctx.progress(0, 1, `waiting for tab ${tabId} to load`), 5_000)
  try {
    return tabInfo(await waitForLoad(tabId, timeout, { requireLoading: true }))
  } finally {
    clearInterval(ticker)
  }
}

export async function listTabs(input: In<'listTabs'>) {
  const [tabs, focused] = await Promise.all([
    chrome.tabs.query({}),
    chrome.windows.getLastFocused().catch(() => undefined),
  ])
  const filtered =
    input.urlContains === undefined ? tabs : tabs.filter((t) => (t.url ?? '').includes(input.urlContains!))
  return { tabs: filtered.map((t) => ({ ...tabInfo(t), focusedWindow: t.windowId === focused?.id })) }
}

/** The daemon validates URLs against the schema already; this keeps the extension safe on its own too. */
function assertWebUrl(url: string): void {
  if (!/^(https?:\/\/\S+|about:blank)$/i.test(url))
    throw invalid(`only http(s) URLs and about:blank can be opened, not ${url.slice(0, 200)}`)
}

export async function openTab(input: In<'openTab'>, ctx: BuiltinContext) {
  if (input.url !== undefined) assertWebUrl(input.url)
  const tab = await chrome.tabs.create({ url: input.url ?? 'about:blank', active: input.active ?? true })
  const tabId = tabIdOf(tab)
  await adoptTab(tabId, ctx)
  if (!input.url || input.url === 'about:blank') return tabInfo(await getTab(tabId))
  return settle(tabId, input.waitForLoad, undefined, ctx)
}

export async function closeTab(input: In<'closeTab'>) {
  await getTab(input.tabId)
  await chrome.tabs.remove(input.tabId)
  return { closed: input.tabId }
}

export async function focusTab(input: In<'focusTab'>) {
  const tab = await getTab(input.tabId)
  await chrome.tabs.update(input.tabId, { active: true })
  await chrome.windows.update(tab.windowId, { focused: true }).catch(() => undefined)
  return tabInfo(await getTab(input.tabId))
}

export async function navigate(input: In<'navigate'>, ctx: BuiltinContext) {
  assertWebUrl(input.url)
  const tabId = tabIdOf(await resolveTab(input.tabId))
  await chrome.tabs.update(tabId, { url: input.url })
  return pageAfter(tabId, input, await settle(tabId, input.waitForLoad, input.timeoutMs, ctx))
}

/** A loaded page as its snapshot, unless the call asked for the tab only (or not to wait). */
async function pageAfter(
  tabId: number,
  input: { snapshot?: 'full' | 'none'; waitForLoad?: boolean },
  info: ReturnType<typeof tabInfo>,
) {
  if (input.snapshot === 'none' || input.waitForLoad === false || isRestrictedUrl(info.url)) return info
  return pageAfterLoad(tabId)
}

/**
 * History moves go through the DevTools protocol: chrome.tabs.goBack skips entries Chrome marks as
 * skippable (pages left without a user gesture), which is every page an agent navigated itself.
 */
async function history(direction: 'back' | 'forward', input: In<'goBack'>, ctx: BuiltinContext) {
  const tab = await resolveTab(input.tabId)
  const tabId = tabIdOf(tab)
  const missing = () =>
    notFound(`tab ${tabId} has no ${direction === 'back' ? 'previous' : 'next'} page in its history`)
  if (isRestrictedUrl(tab.url)) {
    try {
      await (direction === 'back' ? chrome.tabs.goBack(tabId) : chrome.tabs.goForward(tabId))
    } catch (err) {
      if (/Cannot find a (next|previous) page in history/i.test(messageOf(err))) throw missing()
      throw err
    }
  } else {
    await withDebugger(tabId, tab.url, async (cdp) => {
      const { currentIndex, entries } = await cdp.send<{ currentIndex: number; entries: { id: number }[] }>(
        'Page.getNavigationHistory',
      )
      const entry = entries[currentIndex + (direction === 'back' ? -1 : 1)]
      if (!entry) throw missing()
      await cdp.send('Page.navigateToHistoryEntry', { entryId: entry.id })
    })
  }
  return pageAfter(tabId, input, await settle(tabId, input.waitForLoad, input.timeoutMs, ctx))
}

export const goBack = (input: In<'goBack'>, ctx: BuiltinContext) => history('back', input, ctx)
export const goForward = (input: In<'goForward'>, ctx: BuiltinContext) => history('forward', input, ctx)

export async function reload(input: In<'reload'>, ctx: BuiltinContext) {
  const tabId = tabIdOf(await resolveTab(input.tabId))
  await chrome.tabs.reload(tabId, { bypassCache: input.bypassCache ?? false })
  return pageAfter(tabId, input, await settle(tabId, input.waitForLoad, input.timeoutMs, ctx))
}

export const tabsHandlers: Handlers<typeof defs> = {
  listTabs,
  openTab,
  closeTab,
  focusTab,
  navigate,
  goBack,
  goForward,
  reload,
}
