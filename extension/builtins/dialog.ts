/** browser_handle_dialog through Page.handleJavaScriptDialog. */
import type { storage as defs, BrowserToolInput } from '../../src/tools'
import { withDebugger } from './debuggerSession'
import { messageOf, notFound, sleep, withTimeout } from './errors'
import { resolveTab, tabIdOf } from './tabs'

type In = BrowserToolInput<typeof defs.handleDialog>

export async function handleDialog(input: In) {
  const tab = await resolveTab(input.tabId)
  const tabId = tabIdOf(tab)
  return withDebugger(tabId, tab.url, async (cdp) => {
    let opened: { type?: string; message?: string } = {}
    const off = cdp.on((method, params) => {
      if (method === 'Page.javascriptDialogOpening') opened = { type: params.type as string, message: params.message as string }
    })
    try {
      // Enabling Page makes Chrome report a dialog that opened before we attached.
      await withTimeout(cdp.send('Page.enable'), 5_000, `tab ${tabId} did not answer`)
      await sleep(50)
      try {
        await cdp.send('Page.handleJavaScriptDialog', { accept: input.accept, ...(input.promptText !== undefined ? { promptText: input.promptText } : {}) })
      } catch (err) {
        if (/no dialog/i.test(messageOf(err))) throw notFound(`no JavaScript dialog is open in tab ${tabId}`)
        throw err
      }
      await cdp.send('Page.disable').catch(() => undefined)
      return { handled: true, accepted: input.accept, type: opened.type ?? null, message: opened.message ?? null }
    } finally {
      off()
    }
  })
}
