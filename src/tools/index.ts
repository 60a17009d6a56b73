/**
 * The built-in `browser_*` and `extension_*` tools: names, descriptions and input schemas. The daemon
 * lists and validates them; the extension runs them (`extension/builtins`). No `node:*` here: the
 * extension bundles this module too.
 */
import type { ToolAnnotations } from '../protocol/manifest'
import { OTHER_AGENT_FIELD } from './common'
import type { BrowserToolContext, BrowserToolDefinition, Prepared, ToolSink } from './define'
import * as devtools from './devtools'
import * as emulation from './emulation'
import * as extension from './extension'
import * as forms from './forms'
import * as input from './input'
import * as mouse from './mouse'
import * as network from './network'
import * as page from './page'
import * as reading from './reading'
import * as script from './script'
import * as storage from './storage'
import * as tabs from './tabs'
import * as windows from './windows'
import * as workflows from './workflows'

export type {
  BrowserToolContext,
  BrowserToolDefinition,
  BrowserToolInput,
  BrowserToolOutput,
  Prepared,
  ToolSink,
  UploadFile,
} from './define'
export {
  devtools,
  emulation,
  extension,
  forms,
  input,
  mouse,
  network,
  page,
  reading,
  script,
  storage,
  tabs,
  windows,
  workflows,
}

/**
 * The definition modules, in the order agents see them; a module's name is its tools' group. The
 * extension keeps one handler map per module (extension/builtins), checked against it by type: a tool
 * is one export here and one handler there. Every fact about a tool (its group, the core set, whether
 * its results carry page text, whether it acts on a tab) is read from its definition: the lists below
 * are derived, none is kept by hand.
 */
export const BROWSER_TOOL_GROUPS = {
  tabs,
  windows,
  page,
  reading,
  input,
  forms,
  mouse,
  devtools,
  network,
  storage,
  emulation,
  script,
  workflows,
  extension,
}
export type BrowserToolGroups = typeof BROWSER_TOOL_GROUPS

/** Every built-in tool with its TypeBox schema, in the order agents see them. */
export const BROWSER_TOOL_DEFINITIONS: readonly BrowserToolDefinition[] = Object.values(
  BROWSER_TOOL_GROUPS,
).flatMap((group: Record<string, BrowserToolDefinition>) => Object.values(group))

export interface BrowserTool {
  name: string
  displayName: string
  description: string
  /** Plain JSON Schema (type 'object'), free of TypeBox symbols: what the daemon validates with. */
  inputSchema: Record<string, unknown>
  /** What agents read in tools/list: inputSchema without the size bounds only validation needs. */
  listedSchema: Record<string, unknown>
  /** MCP hints (BrowserToolDefinition.annotations). */
  annotations: ToolAnnotations
  /** Plain JSON Schema of the result, for tools whose result is one object (BrowserToolDefinition.output). */
  outputSchema?: Record<string, unknown>
  /** The daemon's step before the extension runs the tool (BrowserToolDefinition.prepare). */
  prepare?(input: unknown, context: BrowserToolContext): Promise<Prepared<unknown>>
}

/**
 * String and array size bounds (a selector's 2000 characters, 20 files) cost every agent context
 * bytes and rarely matter to it: tools/list leaves them out, the daemon still enforces them, and its
 * refusal names the bound. Patterns, enums, numeric ranges and defaults stay.
 */
const SIZE_BOUNDS = new Set(['minLength', 'maxLength', 'minItems', 'maxItems', 'uniqueItems', 'pattern'])
function withoutSizeBounds(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutSizeBounds)
  if (typeof schema !== 'object' || schema === null) return schema
  return Object.fromEntries(
    Object.entries(schema)
      .filter(([key, value]) => !(SIZE_BOUNDS.has(key) && typeof value !== 'object'))
      .map(([key, value]) => [
        key,
        key === 'properties'
          ? Object.fromEntries(Object.entries(value as object).map(([k, v]) => [k, withoutSizeBounds(v)]))
          : withoutSizeBounds(value),
      ]),
  )
}

/** The built-in tools as plain JSON, for tools/list, ajv and sync.full. */
export const BROWSER_TOOLS: readonly BrowserTool[] = BROWSER_TOOL_DEFINITIONS.map((tool) => {
  const inputSchema = withOtherAgentField(JSON.parse(JSON.stringify(tool.input)) as Record<string, unknown>)
  return {
    name: tool.name,
    displayName: tool.displayName,
    description: tool.description,
    inputSchema,
    listedSchema: withoutSizeBounds(inputSchema) as Record<string, unknown>,
    annotations: tool.annotations,
    ...(tool.output
      ? { outputSchema: JSON.parse(JSON.stringify(tool.output)) as Record<string, unknown> }
      : {}),
    ...(tool.prepare ? { prepare: tool.prepare.bind(tool) } : {}),
  }
})

/** Tools acting on a tab refuse a tab in another agent's group unless the call sets this field. */
function withOtherAgentField(schema: Record<string, unknown>): Record<string, unknown> {
  if (!actsOnTab(schema)) return schema
  // Described once, in browser_list_tabs.
  ;(schema.properties as Record<string, unknown>)[OTHER_AGENT_FIELD] = { type: 'boolean' }
  return schema
}

export const BROWSER_TOOL_NAMES: readonly string[] = BROWSER_TOOLS.map((tool) => tool.name)

export function isBrowserToolName(name: string): boolean {
  return BROWSER_TOOL_NAMES.includes(name)
}

/** For a built-in tool without its own hint: the ways most of them narrow down. */
const NARROW_ANY_TOOL =
  'pass ref or selector for one part of the page, use browser_find or browser_query instead of reading it all, or lower limit or maxLength'
const NARROWING = new Map(BROWSER_TOOL_DEFINITIONS.map((tool) => [tool.name, tool.narrow ?? NARROW_ANY_TOOL]))

/** How an agent asks a built-in tool for less, for the marker of a cut result; undefined for other tools. */
export function browserToolNarrowing(name: string): string | undefined {
  return NARROWING.get(name)
}

/** The groups a user can opt into: the definition modules' names, and `all`. */
export const BROWSER_TOOL_GROUP_NAMES: readonly string[] = Object.keys(BROWSER_TOOL_GROUPS)

/** Each group's tools by full name, sorted. */
export const TOOL_NAMES_BY_GROUP: Readonly<Record<string, readonly string[]>> = Object.fromEntries(
  Object.entries(BROWSER_TOOL_GROUPS).map(([group, tools]) => [
    group,
    Object.values(tools)
      .map((tool: BrowserToolDefinition) => tool.name)
      .sort(),
  ]),
)

const GROUP_OF = new Map(
  Object.entries(TOOL_NAMES_BY_GROUP).flatMap(([group, names]) =>
    names.map((name) => [name, group] as const),
  ),
)

/** The group (definition module) of a built-in tool, e.g. `network`; `core` is not a group, it spans them. */
export function browserToolGroup(name: string): string | undefined {
  return GROUP_OF.get(name)
}

/**
 * The built-in tools the `browser` default permission reaches on its own (`core: true` in their
 * definitions). The other groups are opted into by name (config.json `permissions.browser.groups`,
 * `bridge config set browser-groups.add <group>`, or `all`); any tool can still be set one by one.
 */
export const CORE_BROWSER_TOOLS: ReadonlySet<string> = new Set(
  BROWSER_TOOL_DEFINITIONS.filter((tool) => tool.core === true).map((tool) => tool.name),
)

/** Whether the `browser` default permission reaches this tool: core, or in a group opted into. */
export function browserToolListedByDefault(name: string, groups: readonly string[]): boolean {
  if (CORE_BROWSER_TOOLS.has(name) || groups.includes('all')) return true
  const group = GROUP_OF.get(name)
  return group !== undefined && groups.includes(group)
}

/** Built-in tools whose results never carry page-written text (`pageText: false` in their definitions). */
export const PAGE_TEXT_FREE_TOOLS: ReadonlySet<string> = new Set(
  BROWSER_TOOL_DEFINITIONS.filter((tool) => tool.pageText === false).map((tool) => tool.name),
)

/** Whether a tool's input names a tab (`tabId`): it acts on one tab, the named one or the active one. */
function actsOnTab(input: { properties?: unknown }): boolean {
  return typeof input.properties === 'object' && input.properties !== null && 'tabId' in input.properties
}

/** Built-in tools that act on one tab (their input has `tabId`): checked against the agents' tab groups first. */
export const TAB_TOOLS: ReadonlySet<string> = new Set(
  BROWSER_TOOL_DEFINITIONS.filter((tool) => actsOnTab(tool.input)).map((tool) => tool.name),
)

const SINKS = new Map(BROWSER_TOOL_DEFINITIONS.map((tool) => [tool.name, tool.sink]))

/** Where a built-in tool's arguments may carry data (BrowserToolDefinition.sink), undefined for most. */
export function browserToolSink(name: string): ToolSink | undefined {
  return SINKS.get(name)
}

const LISTED = new Set(BROWSER_TOOL_DEFINITIONS.filter((tool) => tool.source === 'listed').map((t) => t.name))

/** Whether a built-in tool's result lists pages by URL, each read from its own origin (BrowserToolDefinition.source). */
export function browserToolListsPages(name: string): boolean {
  return LISTED.has(name)
}

const CAPS = new Map(BROWSER_TOOL_DEFINITIONS.map((tool) => [tool.name, tool.defaultCap]))

/** A built-in tool's `defaultCap` (see BrowserToolDefinition), undefined for most. */
export function browserToolDefaultCap(name: string): 'ask' | 'off' | undefined {
  return CAPS.get(name)
}
