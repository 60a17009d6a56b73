/** browser_click, browser_hover, browser_type, browser_press_key, browser_select_option, browser_scroll. */
import { adoptTab } from './agentGroups'
import type { BuiltinContext, Handlers } from './context'
import type { input as defs, BrowserToolInput } from '../../src/tools'
import { withDebugger } from './debuggerSession'
import { invalid, sleep } from './errors'
import { locateElement, type Located } from './frames'
import { runInPage } from './pageScript'
import { getTab, resolveTab, tabIdOf, waitForLoad } from './tabLookup'
import { insertText, modifierBits, mouseClick, mouseMove, pressCombination } from './trustedInput'

type In<K extends keyof typeof defs> = BrowserToolInput<(typeof defs)[K]>

async function locate(tab: chrome.tabs.Tab, input: { ref?: string; selector?: string }): Promise<Located> {
  const where = await locateElement(tab, { ref: input.ref, selector: input.selector })
  if (where.coveredBy)
    throw invalid(
      `${where.description} is covered by ${where.coveredBy}: close or scroll away what covers it, or act on that element instead`,
    )
  return where
}

/** After an action the page may start navigating; give it a moment and wait for the new page. */
export async function afterAction(tabId: number): Promise<chrome.tabs.Tab> {
  await sleep(150)
  const tab = await getTab(tabId).catch(() => undefined)
  if (tab?.status === 'loading') return waitForLoad(tabId, 15_000).catch(() => getTab(tabId))
  return tab ?? getTab(tabId)
}

/** Tabs the action opened (links with target=_blank, window.open), so the agent can switch to them. */
export async function openedTabs(tabId: number, before: Set<number>) {
  const tabs = await chrome.tabs.query({})
  return tabs
    .filter((t) => t.id !== undefined && !before.has(t.id) && t.openerTabId === tabId)
    .map((t) => ({ tabId: t.id!, url: t.pendingUrl ?? t.url ?? '' }))
}

export async function click(input: In<'click'>, ctx: BuiltinContext) {
  const tab = await resolveTab(input.tabId)
  const tabId = tabIdOf(tab)
  const where = await locate(tab, input)
  const before = new Set((await chrome.tabs.query({})).map((t) => t.id ?? -1))
  await withDebugger(tabId, tab.url, (cdp) =>
    mouseClick(cdp, where.x, where.y, {
      button: input.button ?? 'left',
      clickCount: input.doubleClick ? 2 : 1,
      modifiers: modifierBits(input.modifiers),
    }),
  )
  const after = await afterAction(tabId)
  const opened = await openedTabs(tabId, before)
  // Tabs an agent's click opens belong to that agent too.
  for (const tab of opened) await adoptTab(tab.tabId, ctx).catch(() => undefined)
  return {
    clicked: where.description,
    url: after.url ?? '',
    ...(opened.length ? { openedTabs: opened } : {}),
  }
}

export async function hover(input: In<'hover'>) {
  const tab = await resolveTab(input.tabId)
  const where = await locate(tab, input)
  await withDebugger(tabIdOf(tab), tab.url, (cdp) => mouseMove(cdp, where.x, where.y))
  return { hovered: where.description }
}

export async function type(input: In<'type'>) {
  const tab = await resolveTab(input.tabId)
  const tabId = tabIdOf(tab)
  const target = { ref: input.ref, selector: input.selector }
  const clear = input.clear ?? true
  const field = await runInPage<{ description: string; empty: boolean }>(tab, 'focusEditable', {
    ...target,
    clear,
  })
  await withDebugger(tabId, tab.url, async (cdp) => {
    // insertText replaces the selection; with nothing to insert, delete the selected content instead.
    if (input.text) await insertText(cdp, input.text)
    else if (clear && !field.empty) await pressCombination(cdp, 'Delete')
    if (input.submit) await pressCombination(cdp, 'Enter')
  })
  if (input.submit) {
    const after = await afterAction(tabId)
    return { typed: field.description, submitted: true, url: after.url ?? '' }
  }
  const value = await runInPage<{ value: string | null; hidden?: true }>(await getTab(tabId), 'value', target)
  return { typed: field.description, ...value }
}

export async function pressKey(input: In<'pressKey'>) {
  const tab = await resolveTab(input.tabId)
  const tabId = tabIdOf(tab)
  if (input.ref !== undefined || input.selector !== undefined)
    await runInPage(tab, 'focusTarget', { ref: input.ref, selector: input.selector })
  await withDebugger(tabId, tab.url, (cdp) => pressCombination(cdp, input.key))
  const after = await afterAction(tabId)
  const { focused } = await runInPage<{ focused: string | null }>(after, 'activeElement').catch(() => ({
    focused: null,
  }))
  return { pressed: input.key, focused, url: after.url ?? '' }
}

export async function selectOption(input: In<'selectOption'>) {
  const tab = await resolveTab(input.tabId)
  return runInPage(tab, 'selectOption', { ref: input.ref, selector: input.selector, values: input.values })
}

export async function scroll(input: In<'scroll'>) {
  const tab = await resolveTab(input.tabId)
  return runInPage(tab, 'scroll', {
    ref: input.ref,
    selector: input.selector,
    direction: input.direction,
    amount: input.amount,
  })
}

export const inputHandlers: Handlers<typeof defs> = { click, hover, type, pressKey, selectOption, scroll }
