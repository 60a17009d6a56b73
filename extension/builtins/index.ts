/**
 * The built-in `browser_*` and `extension_*` tools, run in the service worker with Chrome APIs. The
 * dispatcher calls `runBuiltinTool` for `tool.dispatch` with plugin `browser`; the daemon has already
 * validated `input` against the tool's schema in `src/tools`. Failures throw an Error carrying `code`
 * ('tool_error'), `category` and `retryable` (see ./errors). Screenshots return `{ type: 'image', data, mimeType }`.
 */
import { BROWSER_TOOL_GROUPS, TAB_TOOLS, type BrowserToolGroups } from '../../src/tools'
import { OTHER_AGENT_FIELD } from '../../src/tools/common'
import { assertMayAct, otherOwner } from './agentGroups'
import { originOf, takeApprovedOrigin } from './approvedTabs'
import type { BuiltinContext, BuiltinHandler, HandlerTable } from './context'
import { openDialogs } from './debuggerSession'
import { devtoolsHandlers } from './devtools'
import { emulationHandlers } from './emulation'
import { BuiltinToolError, internal, invalid } from './errors'
import { recordExtensionLog } from './extensionLog'
import { extensionHandlers, hooks, type BuiltinHooks } from './extension'
import { formsHandlers } from './forms'
import { inputHandlers } from './input'
import { mouseHandlers } from './mouse'
import { networkHandlers } from './network'
import { pageHandlers } from './page'
import { readingHandlers } from './reading'
import { scriptHandlers } from './script'
import { storageHandlers } from './storage'
import { resolveTab } from './tabLookup'
import { tabsHandlers } from './tabs'
import { windowsHandlers } from './windows'
import { runWorkflow } from './workflowReplay'
import { captureTarget, workflowsHandlers } from './workflows'
import type { WorkflowRunInput } from '../../src/protocol/workflow'

export type { BuiltinContext } from './context'
export { BuiltinToolError } from './errors'
export { recordExtensionLog } from './extensionLog'

/**
 * The one handler table: `extension/builtins/<group>.ts` holds the handlers of `src/tools/<group>.ts`.
 * The mapped type requires every group and, through `Handlers`, every tool of it: a definition with
 * no handler is a type error. The other files here are helpers the handlers share.
 */
const GROUPS: HandlerTable = {
  tabs: tabsHandlers,
  windows: windowsHandlers,
  page: pageHandlers,
  reading: readingHandlers,
  input: inputHandlers,
  forms: formsHandlers,
  mouse: mouseHandlers,
  devtools: devtoolsHandlers,
  network: networkHandlers,
  storage: storageHandlers,
  emulation: emulationHandlers,
  script: scriptHandlers,
  workflows: workflowsHandlers,
  extension: extensionHandlers,
}

/** The open dialogs a caller may hear of: not those in another agent's tabs. */
async function dialogsFor(ctx: BuiltinContext) {
  const visible = []
  for (const dialog of openDialogs()) {
    const tab = await chrome.tabs.get(dialog.tabId).catch(() => undefined)
    if (tab && (await otherOwner(tab, ctx)) === undefined) visible.push(dialog)
  }
  return visible
}

/** Every result says which dialogs are open, so an agent whose page froze learns why at once. */
async function withDialogs(output: unknown, ctx: BuiltinContext): Promise<unknown> {
  const dialogs = await dialogsFor(ctx)
  if (!dialogs.length) return output
  const note = dialogs.map((d) => ({
    ...d,
    message: d.message.slice(0, 500),
    answerWith: 'browser_handle_dialog',
  }))
  if (typeof output === 'string') return `${output}\n[open dialogs: ${JSON.stringify(note)}]`
  if (
    output &&
    typeof output === 'object' &&
    !Array.isArray(output) &&
    (output as { type?: unknown }).type !== 'image'
  )
    return { ...output, openDialogs: note }
  return output
}

const HANDLERS = new Map<string, BuiltinHandler>()
for (const [group, definitions] of Object.entries(BROWSER_TOOL_GROUPS))
  for (const [key, definition] of Object.entries(definitions as Record<string, { name: string }>))
    HANDLERS.set(
      definition.name,
      (GROUPS[group as keyof BrowserToolGroups] as Record<string, BuiltinHandler>)[key]!,
    )

/** The tab a built-in call would act on (the one it names, or the active one); undefined for other tools. */
export async function builtinTabOf(tool: string, input: unknown): Promise<chrome.tabs.Tab | undefined> {
  if (!TAB_TOOLS.has(tool)) return undefined
  const tabId = (input as { tabId?: unknown } | null)?.tabId
  return resolveTab(typeof tabId === 'number' ? tabId : undefined).catch(() => undefined)
}

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
  const args = (input ?? {}) as Record<string, unknown>
  let tab: chrome.tabs.Tab | undefined
  try {
    if (TAB_TOOLS.has(tool)) {
      tab = await resolveTab(args.tabId as number | undefined)
      await assertMayAct(tab, ctx, args[OTHER_AGENT_FIELD] === true)
      // An approved call runs only on the origin its approval showed (./approvedTabs).
      const approved = await takeApprovedOrigin(ctx.dispatchId)
      const shown = originOf(tab.url)
      if (approved !== undefined && shown !== approved)
        throw invalid(
          `tab ${tab.id} now shows ${shown ?? 'no web page'}, not ${approved} as when the call was approved: nothing ran`,
        )
    }
    await captureTarget(tool, args, ctx, tab)
    const output = await handler(args as never, ctx)
    if (tab?.id !== undefined && ctx.labelOrigins) {
      const after = await chrome.tabs.get(tab.id).catch(() => undefined)
      const origins = [originOf(tab.url), originOf(after?.url)].filter((o): o is string => o !== undefined)
      ctx.labelOrigins([...new Set(origins)])
    }
    recordExtensionLog('debug', `${tool} succeeded in ${Date.now() - started} ms`)
    return await withDialogs(output, ctx)
  } catch (err) {
    const failure =
      err instanceof BuiltinToolError ? err : internal(err instanceof Error ? err.message : String(err))
    recordExtensionLog('warning', `${tool} failed: ${failure.message}`)
    const dialogs = await dialogsFor(ctx).catch(() => [])
    if (dialogs.length && !failure.message.includes('dialog'))
      failure.message += ` (open dialogs: ${JSON.stringify(dialogs.map((d) => ({ tabId: d.tabId, type: d.type, message: d.message.slice(0, 200) })))}; answer with browser_handle_dialog)`
    throw failure
  }
}

/** Replays a saved workflow (`workflow_<name>`): its plan as the daemon filled it in (./workflowReplay). */
export async function runWorkflowTool(input: unknown, ctx: BuiltinContext): Promise<unknown> {
  return runWorkflow(input as WorkflowRunInput, runBuiltinTool, ctx)
}
