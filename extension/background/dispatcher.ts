/**
 * `tool.dispatch`: picks the tab (DESIGN.md section 8), or takes the one the daemon names (the tab the
 * user approved the call for: that tab or none), runs the tool there and maps the outcome to
 * the wire: `{ output }`, or JSON-RPC errors -32001 (no matching tab), -32002 (no ready tab),
 * -32003 (the tool failed; data `{ code, category?, retryable? }`). Built-in `browser` tools run in
 * the extension itself.
 */
import { BROWSER_PLUGIN, JsonRpcErrorCode, type ToolErrorData, type ToolState } from '../../src/protocol'
import type { LogLevel } from '../../src/protocol/messages'
import { runBuiltinTool, runWorkflowTool, type BuiltinContext } from '../builtins'
import type { ToolStepAnswer } from '../builtins/context'
import { isWorkflowToolName, pluginToolName } from '../../src/protocol/toolNames'
import { rankTabs } from '../lib/tabChoice'
import { originOf, takeApprovedOrigin } from '../builtins/approvedTabs'
import { invokeAdapter, probeReady, TabGoneError, WrongOriginError } from './adapterHost'
import { RpcError } from './rpc'
import type { TabTracker } from './tabTracker'

export interface DispatchParams {
  dispatchId: string
  plugin: string
  tool: string
  input: unknown
  tabId?: number
  /** With tabId: the origin that tab showed when the call was approved; it runs in no other. */
  origin?: string
  /** The calling MCP client and its session, when the daemon sends them (built-ins group tabs per agent). */
  client?: string
  session?: string
  /** A site's own tool: the hash of the declaration the call was checked and approved with. */
  declared?: string
}

export interface DispatchHooks {
  progress(dispatchId: string, progress: number, total?: number, message?: string): void
  /** A log entry of the call `dispatchId` (it reaches that call's MCP client only). */
  log(dispatchId: string, plugin: string, level: LogLevel, message: string, data?: unknown): void
  /** Right before the answer leaves: sends pending plugin logs of the call ahead of it. */
  beforeResult(): void
  /** A running workflow's tool step, made by the daemon (`workflow.toolStep`). */
  toolStep?(run: string, step: number): Promise<ToolStepAnswer>
}

/** dispatchId -> where it runs; progress events are accepted only from that tab. */
export const runningDispatches = new Map<
  string,
  { plugin: string; tabId: number | null; flushed?: () => void }
>()

/** How long a finished call waits for its flush marker (its last progress events) from the page. */
const FLUSH_WAIT_MS = 500

const toolError = (message: string, data: ToolErrorData): RpcError =>
  new RpcError(JsonRpcErrorCode.toolError, message, data)

/**
 * Defence in depth: the daemon never dispatches a tool that is off, and neither does the extension,
 * by what the daemon last told it (sync.full, plugins.changed). Whoever speaks for the daemon on the
 * socket cannot run a tool the user has not enabled.
 */
function assertEnabled(owner: string, tools: readonly ToolState[], tool: string, fullName: string): void {
  const state = tools.find((t) => t.name === tool)
  if (!state)
    throw toolError(`the extension knows no ${owner} tool ${tool}`, {
      code: 'unknown_tool',
      category: 'validation',
    })
  if (state.permission === 'off')
    throw toolError(
      `the extension refuses ${fullName}: its permission is off. Enable it in the bridge side panel first.`,
      { code: 'permission_off', category: 'permission' },
    )
}

export async function dispatchTool(
  params: DispatchParams,
  tracker: TabTracker,
  browserTools: readonly ToolState[],
  hooks: DispatchHooks,
): Promise<{ output: unknown; origins?: string[] }> {
  if (params.plugin === BROWSER_PLUGIN) {
    // A workflow's permission is its file's, which the daemon checked: its steps run as one call.
    if (!isWorkflowToolName(params.tool)) assertEnabled('built-in', browserTools, params.tool, params.tool)
    return runBuiltin(params, hooks)
  }
  const plugin = tracker.plugin(params.plugin)
  if (!plugin)
    throw toolError(`the extension does not know the plugin ${params.plugin}`, {
      code: 'unknown_tool',
      category: 'validation',
    })
  const label = plugin.displayName || plugin.name
  assertEnabled(label, plugin.tools, params.tool, pluginToolName(plugin.name, params.tool))

  await tracker.refreshFocus()
  const named = params.tabId
  // A call that names its tab (the one the user approved it for) runs there or nowhere.
  const namedTabGone = (why: string): RpcError =>
    new RpcError(
      JsonRpcErrorCode.tabClosed,
      `tab ${named} ${why}: the call did not run (it runs only in the tab it was approved for)`,
    )
  const candidates = tracker.candidates(plugin.name)
  if (named !== undefined) {
    const tab = candidates.find((c) => c.tabId === named)
    if (!tab) throw namedTabGone(`is closed or no longer on a ${label} page`)
    if (!tab.ready) throw namedTabGone(`is no longer ready for ${label}`)
  } else if (candidates.length === 0)
    throw new RpcError(
      JsonRpcErrorCode.tabClosed,
      `no open tab matches ${label} (${plugin.urlPatterns.join(', ')}): open the site first`,
    )

  const order = named !== undefined ? [named] : rankTabs(candidates)
  // The origin the data-flow guard checked this call against (tool.sinkOrigin): it runs there or nowhere.
  const pinned = await takeApprovedOrigin(params.dispatchId)
  for (const tabId of order) {
    const shown = originOf((await chrome.tabs.get(tabId).catch(() => undefined))?.url)
    if (pinned !== undefined && shown !== pinned) {
      if (named !== undefined) throw namedTabGone(`now shows ${shown ?? 'no web page'}, not ${pinned}`)
      continue
    }
    // Only a document whose adapter started with it has a channel the page could not have forged.
    if (!tracker.isIsolated(tabId, plugin.name)) continue
    // The stored state may be stale: ask the page again right before running.
    let ready: boolean | null
    try {
      ready = await probeReady(tabId, plugin.name)
    } catch {
      ready = false
    }
    if (ready !== true) {
      tracker.setReady(tabId, plugin.name, false)
      if (named !== undefined) throw namedTabGone(`is no longer ready for ${label}`)
      continue
    }
    let flushed = (): void => undefined
    const flushMarker = new Promise<void>((resolve) => {
      flushed = resolve
      setTimeout(resolve, FLUSH_WAIT_MS)
    })
    runningDispatches.set(params.dispatchId, { plugin: plugin.name, tabId, flushed })
    try {
      const result = await invokeAdapter(
        tabId,
        plugin.name,
        params.tool,
        params.input,
        params.dispatchId,
        pinned ?? (named !== undefined ? params.origin : undefined),
      )
      await flushMarker
      hooks.beforeResult()
      if (result.ok) return { output: result.output, ...(shown ? { origins: [shown] } : {}) }
      const { code, message, category, retryable } = result.error
      throw toolError(message, {
        code: code || 'tool_error',
        ...(category ? { category } : {}),
        ...(retryable !== undefined ? { retryable } : {}),
      })
    } catch (err) {
      if (err instanceof WrongOriginError)
        throw namedTabGone(`now shows ${err.shown}, not ${params.origin ?? 'the origin it was approved for'}`)
      if (err instanceof TabGoneError)
        throw new RpcError(
          JsonRpcErrorCode.tabClosed,
          `the ${label} tab closed or navigated away while the tool ran`,
        )
      if (err instanceof RpcError) throw err
      throw toolError(err instanceof Error ? err.message : String(err), {
        code: 'tool_error',
        category: 'internal',
      })
    } finally {
      runningDispatches.delete(params.dispatchId)
    }
  }
  throw new RpcError(
    JsonRpcErrorCode.tabUnavailable,
    tracker.staleTabs(plugin.name).some((id) => candidates.some((c) => c.tabId === id))
      ? `${label} is open in a tab that was loaded before its plugin was turned on, installed or updated (or before the extension started): reload its tab so the plugin starts with the page, then try again`
      : `${label} is open but its plugin is not ready in any tab (the site may need you to sign in): sign in to the site in that tab, or reload it, and try again`,
  )
}

async function runBuiltin(
  params: DispatchParams,
  hooks: DispatchHooks,
): Promise<{ output: unknown; origins?: string[] }> {
  runningDispatches.set(params.dispatchId, { plugin: BROWSER_PLUGIN, tabId: null })
  let origins: string[] = []
  try {
    const run = isWorkflowToolName(params.tool)
      ? (_: string, input: unknown, ctx: BuiltinContext) => runWorkflowTool(input, ctx)
      : runBuiltinTool
    const output = await run(params.tool, params.input, {
      labelOrigins: (read) => (origins = read),
      dispatchId: params.dispatchId,
      ...(params.client !== undefined ? { client: params.client } : {}),
      ...(params.session !== undefined ? { session: params.session } : {}),
      progress: (p, total, message) => hooks.progress(params.dispatchId, p, total, message),
      log: (level, message, data) => hooks.log(params.dispatchId, BROWSER_PLUGIN, level, message, data),
      ...(hooks.toolStep ? { toolStep: hooks.toolStep.bind(hooks) } : {}),
    })
    hooks.beforeResult()
    return { output, ...(origins.length ? { origins } : {}) }
  } catch (err) {
    const e = (typeof err === 'object' && err !== null ? err : {}) as Partial<
      Record<'code' | 'message' | 'category', unknown>
    > & {
      retryable?: unknown
    }
    const message = typeof e.message === 'string' ? e.message : String(err)
    const data: ToolErrorData = { code: typeof e.code === 'string' ? e.code : 'tool_error' }
    if (typeof e.category === 'string') data.category = e.category
    if (typeof e.retryable === 'boolean') data.retryable = e.retryable
    throw toolError(message, data)
  } finally {
    runningDispatches.delete(params.dispatchId)
  }
}
