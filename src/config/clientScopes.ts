/**
 * What one MCP client may use, set by the user (`bridge client add|set <name> --plugins ... --sites ...
 * --builtins ... --other-agent yes|no`) and kept in its clients.json entry as `scope`:
 *
 *   { "plugins": ["notes"], "sites": ["https://shop.example"], "builtins": ["tabs", "reading"], "otherAgent": false }
 *
 * A list that is absent means every one (the default); an empty list means none. `otherAgent` (default
 * false) is whether the client may pass `otherAgent: true` to act in a tab of another client's group.
 * The daemon applies the scope to `tools/list` (a tool out of scope is not listed, and `otherAgent` is
 * not offered to a client that may not use it) and to every call (refused with `out_of_scope`, audited),
 * in this module only, so the call path has one call site: its gate (`createClientScopeGate`, below)
 * reads the scope from clients.json through the client registry, afresh when the file changed; the
 * secret's holders (`cli`, `extension`) keep every scope. A listing is built once per catalog change
 * and scope, and kept as JSON text like the catalog's own.
 */
import { Type, type Static } from '@sinclair/typebox'
import type { ListedTool, ToolCatalog } from '../catalog/toolCatalog'
import { BROWSER_PLUGIN, PLUGIN_NAME_PATTERN } from '../protocol'
import { isWorkflowToolName } from '../protocol/workflow'
import { BROWSER_TOOL_GROUPS } from '../tools'
import { OTHER_AGENT_FIELD } from '../tools/common'

/** The built-in tool groups a scope names: the definition modules of src/tools. */
export const BUILTIN_GROUPS = Object.keys(BROWSER_TOOL_GROUPS) as readonly string[]

/** A site is an origin: scheme, host and an optional port, nothing after. */
export const SITE_PATTERN = /^https?:\/\/[a-z0-9.-]+(:\d{1,5})?$/

export const ClientScope = Type.Object(
  {
    plugins: Type.Optional(Type.Array(Type.String({ pattern: PLUGIN_NAME_PATTERN.source }))),
    sites: Type.Optional(Type.Array(Type.String({ pattern: SITE_PATTERN.source }))),
    builtins: Type.Optional(Type.Array(Type.String({ enum: [...BUILTIN_GROUPS] }))),
    otherAgent: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
)
export type ClientScope = Static<typeof ClientScope>

/** The scope of a client whose entry names none: every plugin, site and group; no other agent's tabs. */
export const DEFAULT_SCOPE: ClientScope = {}

const GROUP_OF = new Map<string, string>(
  Object.entries(BROWSER_TOOL_GROUPS).flatMap(([group, tools]) =>
    Object.values(tools).map((tool: { name: string }): [string, string] => [tool.name, group]),
  ),
)

/** The built-in group a tool belongs to (`browser_click` -> `input`); undefined for other tools. */
export function builtinGroupOf(toolName: string): string | undefined {
  // A saved workflow (`workflow_<name>`) is in the group of the tools that record it.
  return GROUP_OF.get(toolName) ?? (isWorkflowToolName(toolName) ? 'workflows' : undefined)
}

/** What a scope check needs of a tool: its name, its plugin, and the origin of a site's own tool. */
export interface ScopedTool {
  fullName: string
  plugin: string
  /** For a site's own (WebMCP) tool: the origin that declared it. */
  site?: string
}

const within = (list: readonly string[] | undefined, value: string): boolean =>
  list === undefined || list.includes(value)

/** Whether the client may list and call this tool at all. */
export function toolInScope(scope: ClientScope, tool: ScopedTool): boolean {
  if (tool.site !== undefined) return within(scope.sites, tool.site)
  if (tool.plugin === BROWSER_PLUGIN) {
    const group = builtinGroupOf(tool.fullName)
    return group !== undefined && within(scope.builtins, group)
  }
  return within(scope.plugins, tool.plugin)
}

/**
 * Why this client may not make this call (a message for the agent), or undefined when it may. The
 * message names the client and the command the user would run, never the arguments.
 */
export function scopeRefusal(
  client: string,
  scope: ClientScope,
  tool: ScopedTool,
  input: unknown,
): string | undefined {
  if (!toolInScope(scope, tool)) {
    const what =
      tool.site !== undefined
        ? `the site ${tool.site}`
        : tool.plugin === BROWSER_PLUGIN
          ? `the built-in group "${builtinGroupOf(tool.fullName) ?? 'unknown'}"`
          : `the plugin "${tool.plugin}"`
    return `the client "${client}" may not use ${what}: the user has not given it that scope (bridge client set ${client})`
  }
  const args = typeof input === 'object' && input !== null ? (input as Record<string, unknown>) : {}
  if (args[OTHER_AGENT_FIELD] === true && scope.otherAgent !== true)
    return `the client "${client}" may not act in another agent's tabs: use your own tabs (browser_open_tab); the user can allow it with bridge client set ${client} --other-agent yes`
  return undefined
}

/** Lists a scope in words, one line per part: for `bridge client show` and the approval card. */
export function describeScope(scope: ClientScope): string[] {
  const list = (items: readonly string[] | undefined, all: string): string =>
    items === undefined ? all : items.length === 0 ? 'none' : items.join(', ')
  return [
    `plugins   ${list(scope.plugins, 'all')}`,
    `sites     ${list(scope.sites, 'all')}`,
    `builtins  ${list(scope.builtins, 'all')}`,
    `otherAgent ${scope.otherAgent === true ? 'yes: may act in other agents’ tabs' : 'no'}`,
  ]
}

/** True when the scope limits nothing but the default does (the listing need not be filtered). */
export function isUnrestricted(scope: ClientScope): boolean {
  return scope.plugins === undefined && scope.sites === undefined && scope.builtins === undefined
}

/** A tools/list input schema without `otherAgent`, for a client that may not use it. */
export function withoutOtherAgent(schema: { type: 'object'; [keyword: string]: unknown }): {
  type: 'object'
  [keyword: string]: unknown
} {
  const properties = schema.properties as Record<string, unknown> | undefined
  if (!properties || !(OTHER_AGENT_FIELD in properties)) return schema
  const { [OTHER_AGENT_FIELD]: _dropped, ...rest } = properties
  return { ...schema, properties: rest }
}

/** Parses a `--plugins` / `--sites` / `--builtins` value: `all`, `none`, or a comma-separated list. */
export function parseScopeList(
  option: 'plugins' | 'sites' | 'builtins',
  value: string,
): { ok: true; value: string[] | undefined } | { ok: false; message: string } {
  const text = value.trim()
  if (text === 'all') return { ok: true, value: undefined }
  if (text === 'none' || text === '') return { ok: true, value: [] }
  const items = [
    ...new Set(
      text.split(',').map((item) => {
        const trimmed = item.trim().replace(/\/+$/, '')
        return option === 'sites' ? trimmed.toLowerCase() : trimmed
      }),
    ),
  ]
  for (const item of items) {
    const bad =
      option === 'plugins'
        ? !PLUGIN_NAME_PATTERN.test(item)
        : option === 'sites'
          ? !SITE_PATTERN.test(item)
          : !BUILTIN_GROUPS.includes(item)
    if (bad)
      return {
        ok: false,
        message:
          option === 'plugins'
            ? `--plugins: "${item}" is not a plugin name (lowercase letters, digits, hyphens); or use all / none`
            : option === 'sites'
              ? `--sites: "${item}" is not an origin such as https://example.com; or use all / none`
              : `--builtins: "${item}" is not a built-in group; the groups are ${BUILTIN_GROUPS.join(', ')} (or all / none)`,
      }
  }
  return { ok: true, value: items }
}

/** The roles that hold the auth.json secret: the user's own CLI and the extension. */
const SECRET_HOLDERS: readonly string[] = ['cli', 'extension']
const HOLDER_SCOPE: ClientScope = { otherAgent: true }
/** Scopes kept apart in the cache (a few per client at most). */
const MAX_CACHED_LISTINGS = 64

/** What a scope looks at: a site's own tool by the origin that declared it. */
function scopedOf(tool: { fullName: string; plugin: string; site?: { origin: string } }): ScopedTool {
  return {
    fullName: tool.fullName,
    plugin: tool.plugin,
    ...(tool.site ? { site: tool.site.origin } : {}),
  }
}

export interface ClientScopeGate {
  /** The scope of a client (the default for one clients.json does not name). */
  scopeOf(client: string): ClientScope
  /** The `tools/list` result for this client, as JSON text. */
  listedJson(client: string): string
  /** Why this call may not go on (the agent's message), or undefined. */
  refusal(client: string, toolName: string, input: unknown): string | undefined
  /** The client's scope in words for the approval card, when the user limited it. */
  describe(client: string): string[] | undefined
}

export function createClientScopeGate(deps: {
  /** The named clients as clients.json has them now (./clients.ts). */
  clients: () => readonly { name: string; scope?: ClientScope }[]
  catalog: Pick<ToolCatalog, 'get' | 'listed' | 'listedJson'>
}): ClientScopeGate {
  let cachedFor: object | undefined
  const cache = new Map<string, string>()

  const scopeOf = (client: string): ClientScope =>
    SECRET_HOLDERS.includes(client)
      ? HOLDER_SCOPE
      : (deps.clients().find((entry) => entry.name === client)?.scope ?? {})

  const listedJson = (client: string): string => {
    const scope = scopeOf(client)
    // The common case costs nothing: an unlimited scope that may also use otherAgent sees the catalog's own.
    if (isUnrestricted(scope) && scope.otherAgent === true) return deps.catalog.listedJson()
    const listed = deps.catalog.listed()
    if (cachedFor !== listed) {
      cachedFor = listed
      cache.clear()
    }
    const key = JSON.stringify(scope)
    let json = cache.get(key)
    if (json === undefined) {
      const tools: ListedTool[] = []
      for (const tool of listed.tools) {
        const known = deps.catalog.get(tool.name)
        if (!known || !toolInScope(scope, scopedOf(known))) continue
        tools.push(
          scope.otherAgent === true ? tool : { ...tool, inputSchema: withoutOtherAgent(tool.inputSchema) },
        )
      }
      json = JSON.stringify({ tools })
      if (cache.size >= MAX_CACHED_LISTINGS) cache.clear()
      cache.set(key, json)
    }
    return json
  }

  return {
    scopeOf,
    listedJson,
    refusal(client, toolName, input) {
      const tool = deps.catalog.get(toolName)
      // An unknown tool fails as unknown_tool in the call itself.
      if (!tool) return undefined
      return scopeRefusal(client, scopeOf(client), scopedOf(tool), input)
    },
    describe(client) {
      if (SECRET_HOLDERS.includes(client)) return undefined
      const scope = scopeOf(client)
      return isUnrestricted(scope) && scope.otherAgent !== true ? undefined : describeScope(scope)
    },
  }
}
