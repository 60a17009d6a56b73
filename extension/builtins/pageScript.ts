/**
 * Runs one operation of the page library (./page) in one frame of a tab, in the extension's isolated
 * world: the top frame, or the frame a ref names (`f<frameId>e<n>`).
 */
import { openDialog } from './debuggerSession'
import {
  BuiltinToolError,
  fromChromeError,
  invalid,
  isRestrictedUrl,
  restricted,
  withTimeout,
} from './errors'
import { tabIdOf } from './tabLookup'
// The page library's global (`__bridgeBuiltins`) is declared there: a program that type-checks this file
// needs that declaration too. Types only; the library reaches pages as its own file.
import type {} from './pageLibrary/index'

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
  frameId: number,
): Promise<PageResult> {
  const target = { tabId, frameIds: [frameId] }
  // The library stays in the document's isolated world once injected: the operation is tried first and
  // the 170 KB file is evaluated only in a document that does not have it yet (one round trip, not two).
  const run = () =>
    chrome.scripting.executeScript({
      target,
      // Serialized into the page: it can use nothing from this module's scope.
      func: (name: string, input: unknown, frame: number) =>
        globalThis.__bridgeBuiltins
          ? globalThis.__bridgeBuiltins.run(name, input, frame)
          : { ok: false, category: 'library_missing' },
      args: [op, args, frameId],
    })
  try {
    let [first] = await run()
    if ((first?.result as PageResult | undefined)?.category === 'library_missing') {
      await chrome.scripting.executeScript({ target, files: [PAGE_LIBRARY_FILE] })
      ;[first] = await run()
    }
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

/** The frame a ref belongs to: `f12e3` is in frame 12, `e3` in the top frame. */
export function frameOfRef(ref: string | undefined): number {
  const match = ref === undefined ? null : /^f(\d+)e\d+$/.exec(ref)
  return match ? Number(match[1]) : 0
}

/**
 * Runs `op` in the tab (in the frame of `args.ref`, or `frameId`) and returns its value; page failures
 * become tool errors with their category.
 */
export async function runInPage<T>(
  tab: chrome.tabs.Tab,
  op: string,
  args: unknown = {},
  frameId = frameOfRef((args as { ref?: string } | undefined)?.ref),
): Promise<T> {
  const tabId = tabIdOf(tab)
  if (isRestrictedUrl(tab.url)) throw restricted(tabId, tab.url)
  // While a dialog is open the page runs no script: say so at once instead of timing out.
  const dialog = openDialog(tabId)
  if (dialog)
    throw invalid(
      `a ${dialog.type} dialog is open in tab ${tabId} ("${dialog.message.slice(0, 200)}"): answer it with browser_handle_dialog first`,
    )
  const result = await withTimeout(
    execute(tabId, tab.url, op, args, frameId),
    PAGE_OP_TIMEOUT_MS,
    `the page in tab ${tabId} did not respond within ${PAGE_OP_TIMEOUT_MS / 1000} s; if a JavaScript dialog is open, close it with browser_handle_dialog`,
  )
  if (result.ok) return result.value as T
  const category =
    result.category === 'not_found' || result.category === 'validation' ? result.category : 'internal'
  throw new BuiltinToolError(result.message ?? 'the page operation failed', category)
}
