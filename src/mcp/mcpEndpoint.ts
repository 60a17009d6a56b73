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
import type { HttpReply, HttpRequest } from '../http/engine'
import type { RateLimiter } from '../http/rateLimit'
import { JsonRpcErrorCode } from '../protocol/errors'
import { createCallRunner, type CallRunnerDeps } from './callRunner'
import { readMessage } from './mcpMessages'
import { accepts, refusal, SessionRevision, sessionRequired } from './sessionRevision'
import { isStatelessRequest } from './statelessRequest'
import { StatelessRevision } from './statelessRevision'

export interface McpEndpointDeps extends CallRunnerDeps {
  /** The tools an agent may see (within its client's scope): the `tools/list` result, serialized. */
  listToolsJson(client: string): string
  /** True for a client the user trusts to show its approvals (`bridge client approvals <name> on`). */
  approvalsInClient?(client: string): boolean
  /** 5 per minute on initialize, for each client (keyed by its name): one client cannot lock out the others. */
  initializeLimiter: RateLimiter
  /** The limit the limiter applies, for the log line and the 429. */
  sessionsPerMinute?: number
  /** Sessions opened in place of ended ones, per client (ENDED_SESSION_RATE_LIMIT_PER_MIN). */
  endedSessionLimiter: RateLimiter
  /** Beyond this many open sessions, a new one closes the session idle the longest. */
  maxSessions: number
}

const accepted = (): HttpReply => ({ status: 202, headers: {} })

export class McpEndpoint {
  readonly sessions: SessionRevision
  readonly stateless: StatelessRevision

  constructor(deps: McpEndpointDeps) {
    const run = createCallRunner(deps)
    const approvalsInClient = (client: string) => deps.approvalsInClient?.(client) === true
    this.sessions = new SessionRevision({ ...deps, approvalsInClient, run })
    this.stateless = new StatelessRevision({
      listToolsJson: (client) => deps.listToolsJson(client),
      run,
      approvalsInClient,
    })
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
