/** Finding tabs and waiting for their pages to load. */
import { notFound, timedOut } from './errors'

const LOAD_POLL_MS = 100

export interface TabInfo {
  tabId: number
  windowId: number
  url: string
  title: string
  active: boolean
  status: string
}

export function tabInfo(tab: chrome.tabs.Tab): TabInfo {
  return {
    tabId: tab.id ?? -1,
    windowId: tab.windowId,
    url: tab.url ?? tab.pendingUrl ?? '',
    title: tab.title ?? '',
    active: tab.active,
    status: tab.status ?? 'unknown',
  }
}

export async function getTab(tabId: number): Promise<chrome.tabs.Tab> {
  try {
    return await chrome.tabs.get(tabId)
  } catch {
    throw notFound(`no tab with id ${tabId}: call browser_list_tabs for the open tabs`)
  }
}

/** The given tab, or the active tab of the focused (else last focused) normal window. */
export async function resolveTab(tabId: number | undefined): Promise<chrome.tabs.Tab> {
  if (tabId !== undefined) return getTab(tabId)
  const [focused] = await chrome.tabs.query({ active: true, lastFocusedWindow: true, windowType: 'normal' })
  if (focused?.id !== undefined) return focused
  const [any] = await chrome.tabs.query({ active: true, windowType: 'normal' })
  if (any?.id !== undefined) return any
  throw notFound('no open tab: open one with browser_open_tab')
}

export function tabIdOf(tab: chrome.tabs.Tab): number {
  if (tab.id === undefined) throw notFound('the tab has no id (it may be a devtools window)')
  return tab.id
}

/**
 * Resolves once the tab's status is `complete`. A navigation may only start shortly after the
 * API call that caused it returns, so `sawLoading` lets callers require a loading phase first.
 */
export async function waitForLoad(
  tabId: number,
  timeoutMs: number,
  opts: { requireLoading?: boolean } = {},
): Promise<chrome.tabs.Tab> {
  const deadline = Date.now() + timeoutMs
  let sawLoading = !opts.requireLoading
  // Without a loading phase within this grace period the action did not navigate (e.g. same-document).
  const graceMs = 1_000
  const started = Date.now()
  // Woken by the tab's status changes as they happen; the poll is the fallback (and ends the grace).
  let wake = (): void => undefined
  const onUpdated = (id: number, change: { status?: string }): void => {
    if (id !== tabId || change.status === undefined) return
    if (change.status === 'loading') sawLoading = true
    wake()
  }
  chrome.tabs.onUpdated.addListener(onUpdated)
  try {
    for (;;) {
      const tab = await getTab(tabId)
      if (tab.status === 'loading') sawLoading = true
      if (tab.status === 'complete' && (sawLoading || Date.now() - started > graceMs)) return tab
      if (Date.now() > deadline)
        throw timedOut(
          `tab ${tabId} did not finish loading ${tab.pendingUrl ?? tab.url ?? ''} within ${timeoutMs} ms`,
        )
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, LOAD_POLL_MS)
        wake = () => {
          clearTimeout(timer)
          resolve()
        }
      })
    }
  } finally {
    chrome.tabs.onUpdated.removeListener(onUpdated)
  }
}
