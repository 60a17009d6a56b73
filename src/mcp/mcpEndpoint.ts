/**
 * `/mcp`, the daemon's own MCP endpoint over Streamable HTTP, for both revisions: a POST is read once
 * here (one parse, one message) and handed to its revision's handler table, the session revision
 * (./sessionRevision.ts: 2025-11-25 and earlier) or the stateless one (./statelessRevision.ts:
 * 2026-07-28); both run `tools/call` through the one call runner (./callRunner.ts). GET and DELETE
 * belong to sessions. What the daemon says to every client (a changed tool list) goes to both.
 *
 * Serving the protocol here, not through the SDK's server, keeps the hot path to one parse and one
 * write: `tools/list` is a cached string, a call's answer one JSON body.
 */
import type { ClientScopeGate } from '../config/clientScopes'
import type { Credentials } from '../config/credentials'
import type { ToolPathLimits } from '../calls/limits'
import type { HttpReply, HttpRequest } from '../http/engine'
import { createRateLimiter } from '../http/rateLimit'
import { ENDED_SESSION_RATE_LIMIT_PER_MIN } from '../protocol'
import { JsonRpcErrorCode } from '../protocol/errors'
import {
  accepts,
  createCallRunner,
  readMessage,
  refusal,
  sessionRequired,
  type CallRunnerDeps,
} from './callRunner'
import { SessionRevision } from './sessionRevision'
import { isStatelessRequest, StatelessRevision } from './statelessRevision'

/** The daemon's parts `/mcp` answers with: the call path (./callRunner.ts), each client's scope and trust, the limits. */
export interface McpEndpointParts extends Omit<CallRunnerDeps, 'catalog' | 'audit' | 'resultMaxBytes'> {
  /** The daemon's stores it reads: the tool index, the audit log, the named MCP clients. */
  stores: Pick<CallRunnerDeps, 'catalog' | 'audit'> & { credentials: Pick<Credentials, 'clients'> }
  /** Each client lists what its scope allows (clients.json, bridge client set). */
  scopes: Pick<ClientScopeGate, 'listedJson'>
  limits: Pick<ToolPathLimits, 'resultMaxBytes' | 'mcpSessionsPerMinute' | 'maxMcpSessions'>
}

const accepted = (): HttpReply => ({ status: 202, headers: {} })

export class McpEndpoint {
  readonly sessions: SessionRevision
  readonly stateless: StatelessRevision

  constructor(parts: McpEndpointParts) {
    const { stores, limits } = parts
    const run = createCallRunner({
      ...parts,
      catalog: stores.catalog,
      audit: stores.audit,
      resultMaxBytes: limits.resultMaxBytes,
    })
    const listToolsJson = (client: string) => parts.scopes.listedJson(client)
    /** A client the user trusts to show its approvals (`bridge client approvals <name> on`). */
    const approvalsInClient = (name: string) =>
      stores.credentials.clients().some((client) => client.name === name && client.approvalsInClient === true)
    this.sessions = new SessionRevision({
      listToolsJson,
      run,
      approvalsInClient,
      // 5 per minute on initialize, for each client (keyed by its name): one client cannot lock out the others.
      initializeLimiter: createRateLimiter({ limit: limits.mcpSessionsPerMinute }),
      sessionsPerMinute: limits.mcpSessionsPerMinute,
      endedSessionLimiter: createRateLimiter({ limit: ENDED_SESSION_RATE_LIMIT_PER_MIN }),
      maxSessions: limits.maxMcpSessions,
    })
    this.stateless = new StatelessRevision({ listToolsJson, run, approvalsInClient })
  }

  /** Open sessions. */
  get count(): number {
    return this.sessions.count
  }

  /** Distinct MCP clients with an open session: one agent reconnecting is still one client. */
  get clientCount(): number {
    return this.sessions.clientCount
  }

  /** Handles POST, GET and DELETE on /mcp for the client named `client` (by its credential). */
  async handle(request: HttpRequest, client: string): Promise<HttpReply> {
    if (request.method !== 'POST') return this.sessions.stream(request, client)
    if (!accepts(request, 'application/json') || !accepts(request, 'text/event-stream'))
      return refusal(
        406,
        -32000,
        'Not Acceptable: the client must accept both application/json and text/event-stream',
      )
    if (!(request.header('content-type') ?? '').includes('application/json'))
      return refusal(415, -32000, 'Unsupported Media Type: Content-Type must be application/json')
    let body: unknown
    try {
      body = JSON.parse(await request.text())
    } catch {
      return refusal(400, JsonRpcErrorCode.parseError, 'Parse error: the body is not valid JSON')
    }
    const message = readMessage(body)
    if (message.kind === 'invalid') return refusal(400, JsonRpcErrorCode.invalidRequest, message.message)
    if (request.header('mcp-session-id') !== null) return this.sessions.post(request, client, message)
    if (message.kind === 'answer') return accepted()
    if (isStatelessRequest((name) => request.header(name), message.params)) {
      if (message.kind === 'request')
        return this.stateless.handle(request, client, message.id, message.method, message.params)
      this.stateless.notified(client, message.method, message.params)
      return accepted()
    }
    if (message.kind === 'request' && message.method === 'initialize')
      return this.sessions.initialize(message.id, message.params, client)
    return sessionRequired(message.kind === 'request' ? message.id : null)
  }

  /** notifications/tools/list_changed to every session and every listen stream that asked for it. */
  toolsChanged(): void {
    this.sessions.toolsChanged()
    this.stateless.toolsChanged()
  }

  /**
   * The user turned the client's approvals off: the questions its sessions hold are withdrawn; an
   * answer that still comes (either revision) is not taken, and its calls wait in the side panel.
   */
  approvalsOff(client: string): void {
    this.sessions.approvalsOff(client)
  }

  /** The client was removed or its token replaced: its sessions and calls end now. */
  closeClient(client: string): void {
    this.stateless.closeClient(client)
    this.sessions.closeClient(client)
  }

  async closeAll(): Promise<void> {
    this.stateless.closeAll()
    this.sessions.closeAll()
    await Promise.resolve()
  }
}
