/** browser_handle_dialog through Page.handleJavaScriptDialog. */
import type { storage as defs, BrowserToolInput } from '../../src/tools'
import { forgetDialog, withDebugger } from './debuggerSession'
import { messageOf, notFound } from './errors'
import { resolveTab, tabIdOf } from './tabLookup'

type In = BrowserToolInput<typeof defs.handleDialog>

export async function handleDialog(input: In) {
  const tab = await resolveTab(input.tabId)
  const tabId = tabIdOf(tab)
  return withDebugger(tabId, tab.url, async (cdp) => {
    const dialog = cdp.dialog()
    try {
      await cdp.send('Page.handleJavaScriptDialog', {
        accept: input.accept,
        ...(input.promptText !== undefined ? { promptText: input.promptText } : {}),
      })
    } catch (err) {
      if (/no dialog/i.test(messageOf(err)))
        throw notFound(
          `no JavaScript dialog is open in tab ${tabId} that bridge can close (a dialog that opened while bridge was not acting on the tab must be closed by the user)`,
        )
      throw err
    }
    forgetDialog(tabId)
    return {
      handled: true as const,
      accepted: input.accept,
      type: dialog?.type ?? null,
      message: dialog?.message ?? null,
    }
  })
}
