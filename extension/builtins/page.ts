/** browser_snapshot, browser_get_text, browser_get_html, browser_wait_for. */
import type { Handlers } from './context'
import type { page as defs, BrowserToolInput } from '../../src/tools'
import type { BuiltinContext } from './context'
import { BuiltinToolError, invalid, sleep, timedOut } from './errors'
import { budgetedSnapshot } from './snapshotText'
import { runInPage } from './pageScript'
import { getTab, resolveTab, tabIdOf } from './tabLookup'

type In<K extends keyof typeof defs> = BrowserToolInput<(typeof defs)[K]>

const POLL_MS = 200
const PROGRESS_EVERY_MS = 2_000

/** The snapshot is returned as text so the agent reads the outline as it is. */
export async function snapshot(input: In<'snapshot'>) {
  const tab = await resolveTab(input.tabId)
  return budgetedSnapshot(tab, input)
}

export async function getText(input: In<'getText'>) {
  const tab = await resolveTab(input.tabId)
  return runInPage(tab, 'text', {
    ref: input.ref,
    selector: input.selector,
    offset: input.offset,
    maxLength: input.maxLength ?? 20_000,
  })
}

export async function getHtml(input: In<'getHtml'>) {
  const tab = await resolveTab(input.tabId)
  return runInPage(tab, 'html', {
    ref: input.ref,
    selector: input.selector,
    outer: input.outer ?? true,
    maxLength: input.maxLength ?? 50_000,
  })
}

function describeCondition(input: In<'waitFor'>): string {
  const parts: string[] = []
  if (input.text !== undefined) parts.push(`text ${JSON.stringify(input.text)} to appear`)
  if (input.textGone !== undefined) parts.push(`text ${JSON.stringify(input.textGone)} to disappear`)
  if (input.selector !== undefined) parts.push(`${input.selector} to be ${input.state ?? 'visible'}`)
  return parts.join(' and ')
}

/** Polls from the service worker, so a navigation in the tab only delays the check instead of failing it. */
export async function waitFor(input: In<'waitFor'>, ctx: BuiltinContext) {
  const timeoutMs = input.timeoutMs ?? 10_000
  const started = Date.now()
  const condition = describeCondition(input)
  if (input.state !== undefined && input.selector === undefined)
    throw invalid('state applies to selector: give a selector too')
  if (!condition) {
    for (let waited = 0; waited < timeoutMs; waited += PROGRESS_EVERY_MS) {
      ctx.progress(waited, timeoutMs, 'waiting')
      await sleep(Math.min(PROGRESS_EVERY_MS, timeoutMs - waited))
    }
    return { met: true, waitedMs: Date.now() - started }
  }
  const tabId = tabIdOf(await resolveTab(input.tabId))
  let lastProgress = started
  let lastError = ''
  for (;;) {
    try {
      const met = await runInPage<boolean>(await getTab(tabId), 'check', {
        text: input.text,
        textGone: input.textGone,
        selector: input.selector,
        state: input.state,
      })
      if (met) return { met: true, waitedMs: Date.now() - started }
    } catch (err) {
      // A bad selector or a closed tab will not fix itself; a page in the middle of loading (even one
      // briefly showing about:blank or an error page) may.
      if (err instanceof BuiltinToolError && /^(invalid CSS selector|no tab with id)/.test(err.message))
        throw err
      lastError = err instanceof Error ? err.message : String(err)
    }
    const now = Date.now()
    if (now - started >= timeoutMs)
      throw timedOut(
        `waited ${timeoutMs} ms for ${condition} in tab ${tabId}, without success${lastError ? ` (last error: ${lastError})` : ''}`,
      )
    if (now - lastProgress >= PROGRESS_EVERY_MS) {
      ctx.progress(now - started, timeoutMs, `waiting for ${condition}`)
      lastProgress = now
    }
    await sleep(POLL_MS)
  }
}

export const pageHandlers: Handlers<typeof defs> = { snapshot, getText, getHtml, waitFor }
