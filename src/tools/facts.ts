/**
 * What the side panel shows of each built-in tool: its group and whether it is in the core set, read
 * from the definitions (./index) like every other list of tools. The panel's bundle gets this
 * module's value computed at build time (scripts/toolFacts.mjs), so it carries none of the
 * definitions' schemas, descriptions or steps.
 */
import { BROWSER_TOOL_NAMES, CORE_BROWSER_TOOLS, browserToolGroup } from './index'

export interface BrowserToolFacts {
  /** The definition module the tool is in (`tabs`, `network`, ...). */
  group: string
  /** Reached by the `browser` default permission on its own (`core: true`). */
  core: boolean
}

/** Every built-in tool by full name, in the order agents see them. */
export const BROWSER_TOOL_FACTS: Readonly<Record<string, BrowserToolFacts>> = Object.fromEntries(
  BROWSER_TOOL_NAMES.map((name) => [
    name,
    { group: browserToolGroup(name) ?? 'other', core: CORE_BROWSER_TOOLS.has(name) },
  ]),
)
