/**
 * The daemon's route table. Each endpoint is one entry built from `services`, the live objects the
 * daemon hands in; to add an endpoint, add a service and an entry here.
 */
import { parseAuditQuery, type AuditQuery } from '../audit'
import { ADMIN_RATE_LIMIT_PER_MIN } from '../protocol'
import type { AuditCheckpoint, AuditConsistency } from '../protocol/auditProof'
import type { EngineSocket, HttpReply, HttpRequest } from './engine'
import { healthRoute, type HealthPayload } from './health'
import { createRateLimiter } from './rateLimit'
import { escapedJson } from '../protocol/untrustedText'
import { errorResponse, jsonResponse, jsonTextResponse } from './responses'
import type { Route, RouteHandler } from './route'

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
