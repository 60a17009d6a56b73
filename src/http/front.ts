/**
 * The daemon's front, engine-independent: every request and upgrade is refused while the daemon
 * drains (503), then goes through the security gate (Host, Origin), then the route table (404 / 405),
 * then the credential (401: the secret, or a named MCP client's token where the route accepts client
 * tokens), the body cap (413) and the route's rate limit (429). One error handler: a BridgeError
 * with an HTTP code maps to its status; anything else is logged and becomes a bare 500. The gate's
 * checks are exported for the CLI's client socket and the proof route; the route table
 * (`createRoutes`) is built from the live `Services` the daemon hands in.
 */
import { timingSafeEqual } from 'node:crypto'
import { parseAuditQuery, type AuditQuery } from '../audit'
import { isBridgeError } from '../errors'
import { log } from '../log'
import { ADMIN_RATE_LIMIT_PER_MIN } from '../protocol'
import type { AuditCheckpoint, AuditConsistency } from '../protocol/auditProof'
import { EXTENSION_ORIGIN, LOOPBACK_HOST, WS_SUBPROTOCOL } from '../protocol/constants'
import { HTTP_STATUS_BY_CODE, type HttpErrorCode } from '../protocol/errors'
import { escapedJson } from '../protocol/untrustedText'
import type { EngineSocket, HttpHandler, HttpReply, HttpRequest, UpgradeHandler } from './engine'
import { healthRoute, type HealthPayload } from './health'
import { createRateLimiter } from './rateLimit'
import {
  errorResponse,
  jsonResponse,
  jsonTextResponse,
  payloadTooLargeResponse,
  rateLimitedResponse,
} from './responses'
import type { Caller, HttpMethod, Route, RouteContext, RouteHandler } from './route'

const logger = log.withTag('http')

export interface FrontOptions {
  routes: readonly Route[]
  /** The bound port (Host header check). */
  port: () => number
  /** The current secret; null disables token checks. */
  secret: () => string | null
  /** The named MCP clients' tokens as the daemon last read them (clients.json). */
  clients?: () => readonly ClientCredential[]
  maxBodyBytes: number
  /** False once the daemon stops taking requests (draining): each is refused with service_unavailable. */
  accepting?: () => boolean
}

export interface Front {
  handle: HttpHandler
  upgrade: UpgradeHandler
}

export function createFront(options: FrontOptions): Front {
  const byPath = new Map(options.routes.map((route) => [route.path, route]))

  const gate = (request: HttpRequest): HttpReply | null =>
    checkHost(request, options.port()) ?? checkOrigin(request)

  /** The secret's holder: the extension when it sends its own Origin, else the CLI. */
  const secretHolder = (request: HttpRequest): Caller =>
    request.header('origin') === EXTENSION_ORIGIN
      ? { role: 'extension', name: 'extension' }
      : { role: 'cli', name: 'cli' }

  /** Who the Authorization header names: the secret's holder, a named client, or nobody. */
  const callerOf = (request: HttpRequest): Caller | null => {
    const secret = options.secret()
    const token = bearerToken(request)
    if (secret === null || (token !== null && secretsEqual(token, secret))) return secretHolder(request)
    const name = token === null ? null : matchClientToken(token, options.clients?.() ?? [])
    return name === null ? null : { role: 'client', name }
  }

  async function route(request: HttpRequest): Promise<HttpReply> {
    if (options.accepting?.() === false)
      return errorResponse('service_unavailable', 'the daemon is shutting down')
    const refused = gate(request)
    if (refused) return refused
    const path = pathOf(request.target)
    const entry = byPath.get(path)
    if (!entry) return errorResponse('not_found', `no endpoint at ${path}`)
    const handler = entry.methods?.[request.method as HttpMethod]
    if (!handler) {
      if (entry.upgrade && request.method === 'GET')
        return errorResponse('bad_request', `${path} only accepts WebSocket upgrades`)
      const allow = Object.keys(entry.methods ?? {}).join(', ')
      return errorResponse('method_not_allowed', `${request.method} is not allowed on ${path}`, { allow })
    }
    const presented = callerOf(request)
    // A client token opens only the routes that accept one; elsewhere it counts as no credential.
    const caller = presented?.role === 'client' && !entry.clientTokens ? null : presented
    if (entry.auth === 'required' && caller === null) return unauthorizedResponse()
    const declared = Number(request.header('content-length') ?? 0)
    if (declared > options.maxBodyBytes) return payloadTooLargeResponse(options.maxBodyBytes)
    if (entry.rateLimit && !entry.rateLimit.take()) return rateLimitedResponse()
    return await handler(request, routeContext(request, caller))
  }

  return {
    async handle(request) {
      try {
        return await route(request)
      } catch (error) {
        return failure(error, request)
      }
    },

    async upgrade(request) {
      try {
        const refused = gate(request)
        if (refused) return { accept: false, response: refused }
        const path = pathOf(request.target)
        const entry = byPath.get(path)
        if (!entry?.upgrade)
          return { accept: false, response: errorResponse('not_found', `no WebSocket endpoint at ${path}`) }
        // The extension's channel is the extension's alone: the secret (a client token is refused
        // like a wrong one), then its pinned Origin (a browser cannot forge it for another origin).
        if (!hasValidWsProtocol(request, options.secret()))
          return { accept: false, response: unauthorizedResponse() }
        const notExtension = checkExtensionOrigin(request)
        if (notExtension) return { accept: false, response: notExtension }
        const decision = await entry.upgrade(
          request,
          routeContext(request, { role: 'extension', name: 'extension' }),
        )
        if (!('onOpen' in decision)) return { accept: false, response: decision }
        return { accept: true, protocol: WS_SUBPROTOCOL, onOpen: decision.onOpen }
      } catch (error) {
        return { accept: false, response: failure(error, request) }
      }
    },
  }
}

/** The path of a request target (`/audit?limit=5` -> `/audit`). */
const pathOf = (target: string): string => {
  const query = target.indexOf('?')
  return query === -1 ? target : target.slice(0, query)
}

function routeContext(request: HttpRequest, caller: Caller | null): RouteContext {
  let url: URL | undefined
  return {
    get url() {
      return (url ??= new URL(request.target, `http://${LOOPBACK_HOST}`))
    },
    authenticated: caller !== null,
    caller,
    // Read only if a route asks (the uws engine asks the socket for it).
    get remoteAddress() {
      return request.remoteAddress
    },
  }
}

function failure(error: unknown, request: HttpRequest): HttpReply {
  if (isBridgeError(error) && error.code in HTTP_STATUS_BY_CODE)
    return errorResponse(error.code as HttpErrorCode, error.message)
  const path = pathOf(request.target)
  // A client that went away mid-request is not a server fault.
  if (request.aborted) {
    logger.debug(`${request.method} ${path} abandoned by the client`)
    return errorResponse('bad_request', 'request aborted')
  }
  logger.error(`${request.method} ${path} failed:`, error)
  return errorResponse('internal_error', 'internal error; see server.log')
}

/*
 * The security gate every request and upgrade passes, in this order:
 * 1. Host: exactly one Host header, equal to `127.0.0.1:<port>`, `localhost:<port>` or `[::1]:<port>`
 *    (the DNS-rebinding defence: a rebound page's requests carry its own host name).
 * 2. Origin: absent (native clients) or exactly the bridge extension's origin.
 * 3. Token: `Authorization: Bearer <secret>` or a named MCP client's own token (which opens only the
 *    routes that accept client tokens: `/mcp`), compared in constant time against every credential.
 *    On `/ws`: the pinned extension Origin and `Sec-WebSocket-Protocol: bridge, <secret>`.
 * Each check returns null when it passes or the refusal to send.
 */

/** What the gate reads of a request: its headers, by lower-case name. */
export interface HeaderSource {
  header(name: string): string | null
}

/** The names of this machine that bridge answers to, and the only ones it connects to. */
export const LOOPBACK_HOSTNAMES: readonly string[] = ['127.0.0.1', 'localhost', '[::1]']

export function allowedHosts(port: number): readonly string[] {
  return LOOPBACK_HOSTNAMES.map((hostname) => `${hostname}:${port}`)
}

/** The allowed Host values of the last port asked about (the daemon's one port: built once, not per request). */
let hostsOf: { port: number; hosts: readonly string[] } | undefined
const allowedHostsCached = (port: number): readonly string[] =>
  (hostsOf?.port === port ? hostsOf : (hostsOf = { port, hosts: allowedHosts(port) })).hosts

/** Duplicate headers reach us joined with ", " by the engines, so they never equal an allowed value. */
export function checkHost(request: HeaderSource, port: number): HttpReply | null {
  const host = request.header('host')
  if (host !== null && allowedHostsCached(port).includes(host.toLowerCase())) return null
  return errorResponse('forbidden_host', 'the Host header must name this loopback server')
}

export function checkOrigin(request: HeaderSource): HttpReply | null {
  const origin = request.header('origin')
  if (origin === null || origin === EXTENSION_ORIGIN) return null
  return errorResponse('forbidden_origin', 'requests from web pages and other extensions are not allowed')
}

/**
 * Constant-time comparison of a presented token with one of ours. Only a length mismatch answers
 * early, and the length is no secret: every token bridge makes is 64 hex characters.
 */
export function secretsEqual(given: string, secret: string): boolean {
  return bytesEqual(Buffer.from(given), knownBytes(secret))
}

const bytesEqual = (given: Buffer, ours: Buffer): boolean =>
  given.length === ours.length && timingSafeEqual(given, ours)

/** The daemon's own credentials as bytes (the secret, client tokens); bounded, a rotation starts afresh. */
const known = new Map<string, Buffer>()
function knownBytes(secret: string): Buffer {
  let bytes = known.get(secret)
  if (bytes === undefined) {
    if (known.size >= 256) known.clear()
    bytes = Buffer.from(secret)
    known.set(secret, bytes)
  }
  return bytes
}

/** The token of `Authorization: Bearer <token>`, or null. */
export function bearerToken(request: HeaderSource): string | null {
  const match = /^Bearer +(\S+) *$/i.exec(request.header('authorization') ?? '')
  return match?.[1] ?? null
}

/** True when the Authorization header carries the secret (or when no secret is configured). */
export function hasValidBearer(request: HeaderSource, secret: string | null): boolean {
  if (secret === null) return true
  const token = bearerToken(request)
  return token !== null && secretsEqual(token, secret)
}

/** A named MCP client's credential. */
export interface ClientCredential {
  name: string
  token: string
}

/**
 * The client whose token `given` is, or null. Every client is compared (no early exit), each in
 * constant time, so the time taken says nothing about which token, or how much of one, matched.
 */
export function matchClientToken(given: string, clients: readonly ClientCredential[]): string | null {
  const bytes = Buffer.from(given)
  let found: string | null = null
  for (const client of clients)
    if (bytesEqual(bytes, knownBytes(client.token)) && found === null) found = client.name
  return found
}

/** `/ws` is the extension's alone: its pinned Origin must be there (a native process sends none). */
export function checkExtensionOrigin(request: HeaderSource): HttpReply | null {
  if (request.header('origin') === EXTENSION_ORIGIN) return null
  return errorResponse('forbidden_origin', '/ws accepts only the bridge extension')
}

export function unauthorizedResponse(): HttpReply {
  return errorResponse('unauthorized', 'a valid bearer token is required', { 'www-authenticate': 'Bearer' })
}

/**
 * `/ws` credentials: `Sec-WebSocket-Protocol: bridge, <secret>` (keeps the secret out of URLs).
 * Returns true when `bridge` is offered first and the second entry is the secret.
 */
export function hasValidWsProtocol(request: HeaderSource, secret: string | null): boolean {
  const offered = (request.header('sec-websocket-protocol') ?? '').split(',').map((p) => p.trim())
  if (offered[0] !== WS_SUBPROTOCOL) return false
  if (secret === null) return true
  return offered.length === 2 && offered[1] !== undefined && secretsEqual(offered[1], secret)
}

/*
 * The daemon's route table. Each endpoint is one entry built from `services`, the live objects the
 * daemon hands in; to add an endpoint, add a service and an entry here.
 */

export interface Services {
  /** The full health payload (see health.ts); composed in src/daemonHealth.ts. */
  getHealth(): HealthPayload
  /** `ws://127.0.0.1:<port>/ws`, built from the bound address, never from a request's Host. */
  wsUrl(): string
  /** An authenticated extension socket on `/ws` (the gate and the subprotocol check already passed). */
  openExtensionSocket(socket: EngineSocket): void
  /** POST, GET and DELETE on /mcp, for the MCP client named `client` (src/mcp/mcpEndpoint.ts). */
  mcp: { handle(request: HttpRequest, client: string): Promise<HttpReply> }
  /** GET /audit: the entries that match. */
  queryAudit(query: AuditQuery): unknown
  /** GET /audit/checkpoint: the verifiable log's head, signed now, of the files as they are. */
  auditCheckpoint(): Promise<AuditCheckpoint>
  /** GET /audit/consistency?from=<size>: that head and the proof that it extends the tree of `from` entries. */
  auditConsistency(from: number): Promise<AuditConsistency>
  /** POST /extension/reload: tells the extension to reload itself; false when none is connected. */
  reloadExtension(): boolean
}

export function createRoutes(services: Services): Route[] {
  const mcp: RouteHandler = (request, { caller }) => services.mcp.handle(request, caller?.name ?? 'unknown')
  return [
    healthRoute(() => services.getHealth()),
    {
      path: '/ws-info',
      auth: 'required',
      methods: { GET: () => jsonResponse({ wsUrl: services.wsUrl() }) },
    },
    {
      path: '/ws',
      auth: 'required',
      upgrade: () => ({ onOpen: (socket) => services.openExtensionSocket(socket) }),
    },
    {
      path: '/mcp',
      auth: 'required',
      // The one endpoint an MCP client's own token opens.
      clientTokens: true,
      methods: { POST: mcp, GET: mcp, DELETE: mcp },
    },
    {
      path: '/audit',
      auth: 'required',
      methods: {
        GET: (_request, { url }) => {
          const query = parseAuditQuery(url.searchParams)
          if (!query.ok) return errorResponse('bad_request', query.message)
          // Bidi and zero-width characters an agent put in a tool name travel as \u escapes.
          return jsonTextResponse(escapedJson(services.queryAudit(query.value)))
        },
      },
    },
    {
      path: '/audit/checkpoint',
      auth: 'required',
      methods: { GET: async () => jsonResponse(await services.auditCheckpoint()) },
    },
    {
      path: '/audit/consistency',
      auth: 'required',
      methods: {
        GET: async (_request, { url }) => {
          const from = url.searchParams.get('from') ?? ''
          if (!/^\d{1,15}$/.test(from))
            return errorResponse('bad_request', 'from must be a tree size (a whole number of entries)')
          return jsonResponse(await services.auditConsistency(Number(from)))
        },
      },
    },
    {
      path: '/extension/reload',
      auth: 'required',
      rateLimit: createRateLimiter({ limit: ADMIN_RATE_LIMIT_PER_MIN }),
      methods: {
        POST: () =>
          services.reloadExtension()
            ? jsonResponse({ ok: true }, 202)
            : errorResponse('extension_not_connected', 'no extension is connected'),
      },
    },
  ]
}
