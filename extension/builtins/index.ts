/**
 * The built-in `browser_*` and `extension_*` tools, run in the service worker with Chrome APIs. The
 * dispatcher calls `runBuiltinTool` for `tool.dispatch` with plugin `browser`; the daemon has already
 * validated `input` against the tool's schema in `src/tools`. Failures throw an Error carrying `code`
 * ('tool_error'), `category` and `retryable` (see ./errors). Screenshots return `{ type: 'image', data, mimeType }`.
 */
import { BROWSER_TOOL_GROUPS, type BrowserToolGroups } from '../../src/tools'
import type { BuiltinContext, BuiltinHandler, Handlers } from './context'
import { devtoolsHandlers } from './devtoolsTools'
import { BuiltinToolError, internal } from './errors'
import { recordExtensionLog } from './extensionLog'
import { extensionHandlers, hooks, type BuiltinHooks } from './extensionTools'
import { inputHandlers } from './inputTools'
import { pageHandlers } from './pageTools'
import { storageHandlers } from './storageTools'
import { tabHandlers } from './tabTools'

export type { BuiltinContext } from './context'
export { BuiltinToolError } from './errors'
export { recordExtensionLog } from './extensionLog'

/** One handler map per definition module of src/tools; the type requires every group and every tool. */
const GROUPS: { [G in keyof BrowserToolGroups]: Handlers<BrowserToolGroups[G]> } = {
  tabs: tabHandlers,
  page: pageHandlers,
  input: inputHandlers,
  devtools: devtoolsHandlers,
  storage: storageHandlers,
  extension: extensionHandlers,
}

const HANDLERS = new Map<string, BuiltinHandler>()
for (const [group, definitions] of Object.entries(BROWSER_TOOL_GROUPS))
  for (const [key, definition] of Object.entries(definitions))
    HANDLERS.set(
      definition.name,
      (GROUPS[group as keyof BrowserToolGroups] as Record<string, BuiltinHandler>)[key]!,
    )

/** Lets the rest of the extension feed extension_get_state and extension_get_logs. */
export function configureBuiltins(next: BuiltinHooks): void {
  Object.assign(hooks, next)
}

/** Runs one built-in tool. Resolves with JSON-able output; rejects with a BuiltinToolError-shaped object. */
export async function runBuiltinTool(tool: string, input: unknown, ctx: BuiltinContext): Promise<unknown> {
  const handler = HANDLERS.get(tool)
  if (!handler)
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
