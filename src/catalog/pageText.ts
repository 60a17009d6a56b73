/**
 * Which results carry text a page wrote, declared per tool in its definition (`pageText: false`, src/tools): the daemon marks those
 * results (src/protocol/pageContent.ts) before an agent sees them. Every plugin tool's result is the
 * page's (a handler runs in the page and returns what it read there), and so is every built-in's,
 * except the few declared free, whose results hold only the call's own arguments, numbers and
 * bridge's words. A new tool is marked until its definition declares it free; a result of a free tool that reports an open
 * dialog (whose message the page wrote) is marked all the same.
 */
import { BROWSER_PLUGIN } from '../protocol/constants'
import { isWorkflowToolName } from '../protocol/workflow'
import { PAGE_TEXT_FREE_TOOLS } from '../tools'

/** Whether this output of this built-in tool holds text a page wrote. */
export function builtinCarriesPageText(tool: string, output: unknown): boolean {
  // A workflow's run: page text only in what its read steps read and in a stop's report (the page
  // around the step); a run that went through says how many steps, which healed, and its tab.
  if (isWorkflowToolName(tool))
    return (
      typeof output !== 'object' ||
      output === null ||
      'read' in output ||
      'stopped' in output ||
      'openDialogs' in output
    )
  if (!PAGE_TEXT_FREE_TOOLS.has(tool)) return true
  // Any built-in result may name the open dialogs, whose messages the page wrote.
  if (typeof output === 'string') return output.includes('[open dialogs:')
  return typeof output === 'object' && output !== null && 'openDialogs' in output
}

/** Which parts of a call's result a page wrote: its output (per output), and its tool errors. */
export interface PageTextRule {
  output(output: unknown): boolean
  /** A `tool_error` message: a plugin's, written in the page (a site's tool's likewise). */
  errors: boolean
}

/** For results that hold no page text at all. */
export const NO_PAGE_TEXT: PageTextRule = { output: () => false, errors: false }

/**
 * For the result of a call of `name`. Plugin tools (and any tool that is not a built-in, such as a
 * site's own) always carry page text, in their output and in their errors; a built-in's errors are
 * the extension's own words.
 */
export function pageTextOf(
  catalog: { get(name: string): { plugin: string } | undefined },
  name: string,
): PageTextRule {
  const tool = catalog.get(name)
  if (tool === undefined) return NO_PAGE_TEXT
  if (tool.plugin !== BROWSER_PLUGIN) return { output: () => true, errors: true }
  return { output: (output) => builtinCarriesPageText(name, output), errors: false }
}
