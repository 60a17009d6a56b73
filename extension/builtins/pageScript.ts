/** Runs one operation of the page library (./page) in a tab's top frame, in the extension's isolated world. */
import { BuiltinToolError, fromChromeError, isRestrictedUrl, restricted, withTimeout } from './errors'
import { tabIdOf } from './tabs'

export const PAGE_LIBRARY_FILE = 'builtinsPage.js'
const PAGE_OP_TIMEOUT_MS = 15_000

interface PageResult {
  ok: boolean
  value?: unknown
  category?: string
  message?: string
}

async function execute(
  tabId: number,
  url: string | undefined,
  op: string,
  args: unknown,
): Promise<PageResult> {
  const target = { tabId, frameIds: [0] }
  try {
    await chrome.scripting.executeScript({ target, files: [PAGE_LIBRARY_FILE] })
    const [first] = await chrome.scripting.executeScript({
      target,
      func: (name: string, input: unknown) => globalThis.__bridgeBuiltins?.run(name, input),
      args: [op, args],
    })
    const result = first?.result as PageResult | undefined
    if (!result)
      throw new BuiltinToolError(
        `the page in tab ${tabId} did not answer (it may be navigating): try again`,
        'internal',
        true,
      )
    return result
  } catch (err) {
    throw fromChromeError(err, tabId, url)
  }
}

/** Runs `op` in the tab and returns its value; page failures become tool errors with their category. */
export async function runInPage<T>(tab: chrome.tabs.Tab, op: string, args: unknown = {}): Promise<T> {
  const tabId = tabIdOf(tab)
  if (isRestrictedUrl(tab.url)) throw restricted(tabId, tab.url)
  const result = await withTimeout(
    execute(tabId, tab.url, op, args),
    PAGE_OP_TIMEOUT_MS,
    `the page in tab ${tabId} did not respond within ${PAGE_OP_TIMEOUT_MS / 1000} s; if a JavaScript dialog is open, close it with browser_handle_dialog`,
  )
  if (result.ok) return result.value as T
  const category =
    result.category === 'not_found' || result.category === 'validation' ? result.category : 'internal'
  throw new BuiltinToolError(result.message ?? 'the page operation failed', category)
}
