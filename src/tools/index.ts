/**
 * The built-in `browser_*` and `extension_*` tools: names, descriptions and input schemas. The daemon
 * lists and validates them; the extension runs them (`extension/builtins`). No `node:*` here: the
 * extension bundles this module too.
 */
import type { BrowserToolDefinition } from './define'
import * as devtools from './devtools'
import * as extension from './extension'
import * as input from './input'
import * as page from './page'
import * as storage from './storage'
import * as tabs from './tabs'

export type { BrowserToolDefinition, BrowserToolInput } from './define'
export { devtools, extension, input, page, storage, tabs }

/**
 * The definition modules, in the order agents see them. The extension keeps one handler map per
 * module (extension/builtins), checked against it by type: a tool is one export here and one handler there.
 */
export const BROWSER_TOOL_GROUPS = { tabs, page, input, devtools, storage, extension }
export type BrowserToolGroups = typeof BROWSER_TOOL_GROUPS

/** Every built-in tool with its TypeBox schema, in the order agents see them. */
export const BROWSER_TOOL_DEFINITIONS: readonly BrowserToolDefinition[] = Object.values(
  BROWSER_TOOL_GROUPS,
).flatMap((group): BrowserToolDefinition[] => Object.values(group))

export interface BrowserTool {
  name: string
  displayName: string
  description: string
  /** Plain JSON Schema (type 'object'), free of TypeBox symbols. */
  inputSchema: Record<string, unknown>
}

/** The built-in tools as plain JSON, for tools/list, ajv and sync.full. */
export const BROWSER_TOOLS: readonly BrowserTool[] = BROWSER_TOOL_DEFINITIONS.map((tool) => ({
  name: tool.name,
  displayName: tool.displayName,
  description: tool.description,
  inputSchema: JSON.parse(JSON.stringify(tool.input)) as Record<string, unknown>,
}))

export const BROWSER_TOOL_NAMES: readonly string[] = BROWSER_TOOLS.map((tool) => tool.name)

export function isBrowserToolName(name: string): boolean {
  return BROWSER_TOOL_NAMES.includes(name)
}
