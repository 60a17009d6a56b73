/**
 * The daemon's one place for client scopes (./clientScopes.ts): what `tools/list` shows a client, and
 * whether a call of it may go on. The scope comes from clients.json through the client registry, read
 * afresh when the file changed; the secret's holders (`cli`, `extension`) keep every scope. A listing is
 * built once per catalog change and scope, and kept as JSON text like the catalog's own.
 */
import type { ListedTool, ToolCatalog } from '../catalog/toolCatalog'
import {
  describeScope,
  isUnrestricted,
  scopeRefusal,
  toolInScope,
  withoutOtherAgent,
  type ClientScope,
  type ScopedTool,
} from './clientScopes'
import type { ClientEntry } from './clients'

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
  clients: () => readonly ClientEntry[]
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
