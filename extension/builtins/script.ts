/**
 * Handler of src/tools/script.ts: browser_evaluate, Runtime.evaluate in the page's main world. The
 * tool is off unless the user enables it by name (its `defaultCap`), and the approval shows the code.
 */
import type { script as defs, BrowserToolInput } from '../../src/tools'
import type { Handlers } from './context'
import { withDebugger } from './debuggerSession'
import { isRestrictedUrl, restricted, withTimeout } from './errors'
import { resolveTab, tabIdOf } from './tabLookup'

type In<K extends keyof typeof defs> = BrowserToolInput<(typeof defs)[K]>

const EVAL_TIMEOUT_MS = 10_000
const MAX_VALUE_CHARS = 20_000

interface EvalResult {
  result: { type: string; value?: unknown; unserializableValue?: string; description?: string }
  exceptionDetails?: { text: string; exception?: { description?: string } }
}

async function evaluate(input: In<'evaluate'>) {
  const tab = await resolveTab(input.tabId)
  const tabId = tabIdOf(tab)
  if (isRestrictedUrl(tab.url)) throw restricted(tabId, tab.url)
  const out = await withDebugger(tabId, tab.url, (cdp) =>
    withTimeout(
      cdp.send<EvalResult>('Runtime.evaluate', {
        expression: input.expression,
        awaitPromise: true,
        returnByValue: true,
        userGesture: true,
        timeout: EVAL_TIMEOUT_MS,
      }),
      EVAL_TIMEOUT_MS + 1_000,
      `the expression did not finish within ${EVAL_TIMEOUT_MS / 1000} s`,
    ),
  )
  if (out.exceptionDetails)
    return { exception: out.exceptionDetails.exception?.description ?? out.exceptionDetails.text }
  const r = out.result
  const value =
    r.unserializableValue !== undefined
      ? r.unserializableValue
      : r.type === 'undefined'
        ? null
        : r.value !== undefined
          ? r.value
          : (r.description ?? null)
  const text = JSON.stringify(value) ?? 'null'
  if (text.length <= MAX_VALUE_CHARS) return { value }
  return {
    value: `${text.slice(0, MAX_VALUE_CHARS)}… [truncated: ${text.length} characters as JSON; return less, e.g. one property]`,
    truncated: true as const,
  }
}

export const scriptHandlers: Handlers<typeof defs> = { evaluate }
