/**
 * What a route is. The daemon's routes are a table (`createRoutes` in front.ts): adding an endpoint means adding an
 * entry, and the front applies the security gate, method check, auth and rate limit to all of them.
 */
import type { EngineSocket, HttpReply, HttpRequest } from './engine'
import type { RateLimiter } from './rateLimit'

export type HttpMethod = 'GET' | 'POST' | 'DELETE' | 'PUT' | 'PATCH'

/**
 * Who is calling. The auth.json secret belongs to the extension (requests that carry the pinned
 * extension Origin) and the CLI (no Origin); MCP clients hold tokens of their own, by name.
 */
export type Caller =
  { role: 'extension'; name: 'extension' } | { role: 'cli'; name: 'cli' } | { role: 'client'; name: string }

export interface RouteContext {
  /** The request's target parsed (built on first use). */
  readonly url: URL
  /** True when the request carried a credential this route accepts (always true on `required` routes). */
  authenticated: boolean
  /** The credential's owner; null without a valid credential (only on `optional` routes). */
  caller: Caller | null
  remoteAddress: string
}

export type RouteHandler = (request: HttpRequest, context: RouteContext) => HttpReply | Promise<HttpReply>

/** A WebSocket route accepts (returning what to do with the open socket) or refuses with a Response. */
export type UpgradeRouteHandler = (
  request: HttpRequest,
  context: RouteContext,
) =>
  | { onOpen: (socket: EngineSocket) => void }
  | HttpReply
  | Promise<{ onOpen: (socket: EngineSocket) => void } | HttpReply>

export interface Route {
  /** Exact path, e.g. `/health`. */
  path: string
  /** `required`: 401 without the secret. `optional`: the handler sees `context.authenticated`. */
  auth: 'required' | 'optional'
  /**
   * True when a named MCP client's own token opens this route too (only `/mcp`). Elsewhere a client
   * token is refused like a wrong one: 401 on `required` routes, the bare answer on `optional` ones.
   */
  clientTokens?: boolean
  methods?: Partial<Record<HttpMethod, RouteHandler>>
  /** For `/ws`: WebSocket upgrades (credentials in `Sec-WebSocket-Protocol`). */
  upgrade?: UpgradeRouteHandler
  /** Checked after auth, so unauthenticated callers cannot use up the budget. */
  rateLimit?: RateLimiter
}
