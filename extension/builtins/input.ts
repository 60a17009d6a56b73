/** browser_click, browser_hover, browser_type, browser_press_key, browser_select_option, browser_scroll. */
import { reportAction } from './actionReport'
import { adoptTab } from './agentGroups'
import type { BuiltinContext, Handlers } from './context'
import type { input as defs, BrowserToolInput } from '../../src/tools'
import { withDebugger } from './debuggerSession'
import { invalid, sleep } from './errors'
import { locateElement, type Located } from './frames'
import type * as pageOps from './pageLibrary/ops'
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
  return reportAction(tabId, { ...input, until: ctx.settledWhen }, async () => {
    await withDebugger(tabId, tab.url, (cdp) =>
      mouseClick(cdp, where.x, where.y, {
        button: input.button ?? 'left',
        clickCount: input.doubleClick ? 2 : 1,
        modifiers: modifierBits(input.modifiers),
      }),
    )
    await sleep(OPENED_TAB_MS)
    const opened = await openedTabs(tabId, before)
    // Tabs an agent's click opens belong to that agent too.
    for (const tab of opened) await adoptTab(tab.tabId, ctx).catch(() => undefined)
    return { lines: opened.map((t) => `Opened tab ${t.tabId}: ${t.url}`) }
  })
}

/** How long a click's new tab may take to appear. */
const OPENED_TAB_MS = 100

export async function hover(input: In<'hover'>) {
  const tab = await resolveTab(input.tabId)
  const where = await locate(tab, input)
  await withDebugger(tabIdOf(tab), tab.url, (cdp) => mouseMove(cdp, where.x, where.y))
  return { hovered: where.description }
}

export async function type(input: In<'type'>, ctx: BuiltinContext) {
  const tab = await resolveTab(input.tabId)
  const tabId = tabIdOf(tab)
  const target = { ref: input.ref, selector: input.selector }
  const clear = input.clear ?? true
  const field = await runInPage<{ description: string; empty: boolean }>(tab, 'focusEditable', {
    ...target,
    clear,
  })
  return reportAction(tabId, { ...input, until: ctx.settledWhen }, async () => {
    await withDebugger(tabId, tab.url, async (cdp) => {
      // insertText replaces the selection; with nothing to insert, delete the selected content instead.
      if (input.text) await insertText(cdp, input.text)
      else if (clear && !field.empty) await pressCombination(cdp, 'Delete')
    })
    const lines: string[] = []
    // What the field holds, when the page changed it (a mask, a length limit); never a password.
    const value = await runInPage<{ value: string | null; hidden?: true }>(
      await getTab(tabId),
      'value',
      target,
    )
    if (clear && !value.hidden && value.value !== input.text)
      lines.push(`${field.description} holds ${JSON.stringify(value.value)}, not the text typed.`)
    const quiet = [await runInPage<string>(tab, 'refOfTarget', target)]
    if (input.submit) await withDebugger(tabId, tab.url, (cdp) => pressCombination(cdp, 'Enter'))
    return { lines, quiet }
  })
}

export async function pressKey(input: In<'pressKey'>, ctx: BuiltinContext) {
  const tab = await resolveTab(input.tabId)
  const tabId = tabIdOf(tab)
  if (input.ref !== undefined || input.selector !== undefined)
    await runInPage(tab, 'focusTarget', { ref: input.ref, selector: input.selector })
  return reportAction(tabId, { ...input, until: ctx.settledWhen }, async () => {
    await withDebugger(tabId, tab.url, (cdp) => pressCombination(cdp, input.key))
    const { focused } = await runInPage<{ focused: string | null }>(
      await getTab(tabId),
      'activeElement',
    ).catch(() => ({ focused: null }))
    return { lines: focused ? [`Focused: ${focused}`] : [] }
  })
}

export async function selectOption(input: In<'selectOption'>, ctx: BuiltinContext) {
  const tab = await resolveTab(input.tabId)
  return reportAction(tabIdOf(tab), { ...input, until: ctx.settledWhen }, async () => {
    const target = { ref: input.ref, selector: input.selector }
    await runInPage(tab, 'selectOption', { ...target, values: input.values })
    return { quiet: [await runInPage<string>(tab, 'refOfTarget', target)] }
  })
}

export async function scroll(input: In<'scroll'>) {
  const tab = await resolveTab(input.tabId)
  return runInPage<ReturnType<typeof pageOps.scroll>>(tab, 'scroll', {
    ref: input.ref,
    selector: input.selector,
    direction: input.direction,
    amount: input.amount,
  })
}

export const inputHandlers: Handlers<typeof defs> = { click, hover, type, pressKey, selectOption, scroll }
