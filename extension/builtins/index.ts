/**
 * The built-in `browser_*` and `extension_*` tools, run in the service worker with Chrome APIs. The
 * dispatcher calls `runBuiltinTool` for `tool.dispatch` with plugin `browser`; the daemon has already
 * validated `input` against the tool's schema in `src/tools`. Failures throw an Error carrying `code`
 * ('tool_error'), `category` and `retryable` (see ./errors). Screenshots return `{ type: 'image', data, mimeType }`.
 */
import { BROWSER_TOOL_NAMES } from '../../src/tools'
import type { BuiltinContext, BuiltinHandler } from './context'
import { consoleLogs } from './consoleLogs'
import { handleDialog } from './dialog'
import { BuiltinToolError, internal } from './errors'
import { recordExtensionLog } from './extensionLog'
import { getLogs, getState, hooks, reloadExtension, type BuiltinHooks } from './extensionTools'
import { click, hover, pressKey, scroll, selectOption, type } from './inputTools'
import { networkExportHar, networkRequests, networkStart, networkStop } from './networkTools'
import { getHtml, getText, snapshot, waitFor } from './pageTools'
import { screenshot } from './screenshot'
import { getCookies, listDownloads, localStorageGet } from './storageTools'
import { closeTab, focusTab, goBack, goForward, listTabs, navigate, openTab, reload } from './tabTools'

export type { BuiltinContext } from './context'
export { BuiltinToolError } from './errors'
export { recordExtensionLog } from './extensionLog'

const HANDLERS: Record<string, BuiltinHandler> = {
  browser_list_tabs: listTabs,
  browser_open_tab: openTab,
  browser_close_tab: closeTab,
  browser_focus_tab: focusTab,
  browser_navigate: navigate,
  browser_go_back: goBack,
  browser_go_forward: goForward,
  browser_reload: reload,
  browser_snapshot: snapshot,
  browser_get_text: getText,
  browser_get_html: getHtml,
  browser_wait_for: waitFor,
  browser_click: click,
  browser_hover: hover,
  browser_type: type,
  browser_press_key: pressKey,
  browser_select_option: selectOption,
  browser_scroll: scroll,
  browser_screenshot: screenshot,
  browser_console_logs: consoleLogs,
  browser_network_start: networkStart,
  browser_network_stop: networkStop,
  browser_network_requests: networkRequests,
  browser_network_export_har: networkExportHar,
  browser_get_cookies: getCookies,
  browser_local_storage_get: localStorageGet,
  browser_handle_dialog: handleDialog,
  browser_list_downloads: listDownloads,
  extension_get_state: getState,
  extension_get_logs: getLogs,
  extension_reload: reloadExtension,
}

/** Lets the rest of the extension feed extension_get_state and extension_get_logs. */
export function configureBuiltins(next: BuiltinHooks): void {
  Object.assign(hooks, next)
}

/** Runs one built-in tool. Resolves with JSON-able output; rejects with a BuiltinToolError-shaped object. */
export async function runBuiltinTool(tool: string, input: unknown, ctx: BuiltinContext): Promise<unknown> {
  const handler = HANDLERS[tool]
  if (!handler || !BROWSER_TOOL_NAMES.includes(tool))
    throw Object.assign(new Error(`there is no built-in tool named ${tool}`), {
      code: 'unknown_tool',
      category: 'validation',
    })
  const started = Date.now()
  try {
    const output = await handler((input ?? {}) as never, ctx)
    recordExtensionLog('debug', `${tool} succeeded in ${Date.now() - started} ms`)
    return output
  } catch (err) {
    const failure =
      err instanceof BuiltinToolError ? err : internal(err instanceof Error ? err.message : String(err))
    recordExtensionLog('warning', `${tool} failed: ${failure.message}`)
    throw failure
  }
}
