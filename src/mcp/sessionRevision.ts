/**
 * `/mcp` for the revisions with sessions (2025-11-25 and earlier): one session per client
 * `initialize`, keyed by the UUID sent back in `Mcp-Session-Id`. A session is a plain object, not an
 * actor: it has one state (open) and one end (closed and forgotten, once), with nothing to wait on in
 * between, so a machine would only restate `close()`. Its calls go to the one call runner
 * (./callRunner.ts). A POST carries one message (read by ./mcpEndpoint.ts): a request is answered by
 * this revision's handler table, as JSON, or as an event stream when it asked for progress; a
 * notification gets 202. GET opens the session's one event stream for notifications
 * (`tools/list_changed`, the log messages of its own calls); DELETE ends the session.
 */
import { randomUUID } from 'node:crypto'
import type { LoggingLevel } from '@modelcontextprotocol/sdk/types.js'
import type { EventSink, HttpReply, HttpRequest } from '../http/engine'
import type { RateLimiter } from '../http/rateLimit'
import { jsonTextResponse, rateLimitedResponse } from '../http/responses'
import { log } from '../log'
import {
  BRIDGE_VERSION,
  MCP_PROTOCOL_VERSIONS,
  RATE_LIMIT_WINDOW_MS,
  SESSION_RATE_LIMIT_PER_MIN,
} from '../protocol'
import { JsonRpcErrorCode } from '../protocol/errors'
import { neutralizeText } from '../protocol/untrustedText'
import {
  accepts,
  callParams,
  errorJson,
  initializeParams,
  loggingLevel,
  McpError,
  notificationJson,
  refusal,
  resultJson,
  sessionRequired,
  sseEvent,
  type McpMessage,
  type RpcId,
  type CallRunner,
  type RunningCall,
} from './callRunner'
import { sessionQuestion, type SessionQuestion } from './sessionApprovals'
import { serverInstructions } from './instructions'

const logger = log.withTag('mcp')

export interface SessionRevisionDeps {
  /** The tools an agent may see (ask / auto): the catalog's `tools/list` result, serialized. */
  listToolsJson(client: string): string
  /** The one tools/call runner (./callRunner.ts). */
  run: CallRunner
  /** True for a client the user trusts to show its approvals (`bridge client approvals <name> on`). */
  approvalsInClient?(client: string): boolean
  /** 5 per minute on initialize, for each client (keyed by its name): one client cannot lock out the others. */
  initializeLimiter: RateLimiter
  /** The limit the limiter applies, for the log line and the 429. */
  sessionsPerMinute?: number
  /** Sessions opened in place of ended ones (ENDED_SESSION_RATE_LIMIT_PER_MIN a minute), per client. */
  endedSessionLimiter: RateLimiter
  /** Beyond this many open sessions, a new one closes the session idle the longest. */
  maxSessions: number
}

interface Session {
  id: string
  /** The MCP client's name, from the credential that opened the session. */
  client: string
  /** The session's GET event stream, while one is open. */
  stream: EventSink | undefined
  /** The client closed the event stream it had opened (and opened none since): it may have left. */
  streamLeft: boolean
  /** Below this, plugin log notifications are not sent (logging/setLevel); all by default. */
  logLevel: LoggingLevel
  /** When the client last sent a request: the eviction order. */
  lastActiveAt: number
  /** The order of that request among all sessions' (two in one millisecond are still ordered). */
  lastActiveSeq: number
  /**
   * Tool calls still running, by request id: how to cancel one, and its approval's question when the
   * client is asked too (the call's `RequestContext.approval`). A session with one is never evicted.
   */
  calls: Map<RpcId, { cancel: RunningCall['cancel']; question?: SessionQuestion | undefined }>
  /** The client declared it can show forms (elicitation) at initialize. */
  elicitsForms: boolean
}

const SERVER_CAPABILITIES = { tools: { listChanged: true }, logging: {} }
const EVENT_STREAM_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' }

const sessionNotFound = () => refusal(404, -32001, 'Session not found')

/** One method of this revision, answered within a session. */
type SessionHandler = (
  session: Session,
  id: RpcId,
  params: Record<string, unknown>,
) => Promise<HttpReply> | HttpReply

export class SessionRevision {
  private readonly sessions = new Map<string, Session>()
  /** Counts requests across sessions: the eviction order. */
  private activity = 0
  /** When each client's last 429 was logged. */
  private readonly rateLimitLogged = new Map<string, number>()
  /** Per client: its sessions that ended (DELETE, or left), not yet replaced by a new one. */
  private readonly endedSessions = new Map<string, number>()

  /** The methods served within a session, one handler each. */
  private readonly handlers: Record<string, SessionHandler> = {
    'tools/list': (session, id) => jsonTextResponse(resultJson(id, this.deps.listToolsJson(session.client))),
    'tools/call': (session, id, params) => this.call(session, id, params),
    ping: (_, id) => jsonTextResponse(resultJson(id, '{}')),
    'logging/setLevel': (session, id, params) => {
      session.logLevel = loggingLevel(params)
      return jsonTextResponse(resultJson(id, '{}'))
    },
    initialize: () => {
      throw new McpError(
        JsonRpcErrorCode.invalidRequest,
        'Invalid Request: the session is initialized already',
      )
    },
  }

  constructor(private readonly deps: SessionRevisionDeps) {}

  get count(): number {
    return this.sessions.size
  }

  /** Distinct MCP clients with an open session: one agent reconnecting is still one client. */
  get clientCount(): number {
    return new Set([...this.sessions.values()].map((session) => session.client)).size
  }

  /** GET and DELETE on /mcp for the client named `client`. */
  stream(request: HttpRequest, client: string): HttpReply {
    const session = this.sessionOf(request, client)
    if (!('id' in session)) return session
    if (request.method === 'DELETE') {
      this.close(session.id, 'DELETE /mcp')
      this.endedSessions.set(client, (this.endedSessions.get(client) ?? 0) + 1)
      return { status: 200, headers: {} }
    }
    return this.openStream(request, session)
  }

  /** notifications/tools/list_changed to every session. */
  toolsChanged(): void {
    const event = sseEvent(notificationJson('notifications/tools/list_changed', {}))
    for (const session of this.sessions.values()) session.stream?.write(event)
  }

  /** The client was removed or its token replaced: its sessions end now (their calls are cancelled). */
  closeClient(client: string): void {
    for (const session of [...this.sessions.values()])
      if (session.client === client) this.close(session.id, 'client removed')
  }

  closeAll(): void {
    for (const id of [...this.sessions.keys()]) this.close(id, 'daemon stopping')
  }

  /** The session a request names, if it belongs to this client; else the refusal to send. */
  private sessionOf(request: HttpRequest, client: string): Session | HttpReply {
    const id = request.header('mcp-session-id')
    if (id === null) return sessionRequired()
    const session = this.sessions.get(id)
    // A session belongs to the client that opened it: another credential gets the same 404.
    if (session?.client !== client) return sessionNotFound()
    const version = request.header('mcp-protocol-version')
    if (version !== null && !MCP_PROTOCOL_VERSIONS.includes(version))
      return refusal(
        400,
        -32000,
        `Bad Request: unsupported MCP-Protocol-Version (supported: ${MCP_PROTOCOL_VERSIONS.join(', ')})`,
      )
    session.lastActiveAt = Date.now()
    session.lastActiveSeq = ++this.activity
    return session
  }

  /** A message (read by ./mcpEndpoint.ts) to the session its request names. */
  async post(
    request: HttpRequest,
    client: string,
    message: Exclude<McpMessage, { kind: 'invalid' }>,
  ): Promise<HttpReply> {
    const session = this.sessionOf(request, client)
    if (!('id' in session)) return session
    if (message.kind === 'answer') {
      this.answered(session, message.id, message.result)
      return { status: 202, headers: {} }
    }
    if (message.kind === 'notification') {
      this.notified(session, message.method, message.params)
      return { status: 202, headers: {} }
    }
    try {
      if (!Object.hasOwn(this.handlers, message.method))
        throw new McpError(
          JsonRpcErrorCode.methodNotFound,
          `Method not found: ${message.method.slice(0, 64)}`,
        )
      return await this.handlers[message.method]!(session, message.id, message.params)
    } catch (error) {
      if (error instanceof McpError) return jsonTextResponse(errorJson(message.id, error.code, error.message))
      logger.error(`${neutralizeText(message.method, 64)} failed:`, error)
      return jsonTextResponse(
        errorJson(message.id, JsonRpcErrorCode.internalError, 'internal error; see server.log'),
      )
    }
  }

  private notified(session: Session, method: string, params: Record<string, unknown>): void {
    // The client gave up on a call: it ends as cancelled (and is audited so).
    if (method === 'notifications/cancelled') {
      const id = params.requestId
      if (typeof id === 'string' || typeof id === 'number') session.calls.get(id)?.cancel('client cancelled')
    }
  }

  /**
   * A tool call. Without a progress token its answer is one JSON body; with one, an event stream
   * carries the progress and then the answer. A client that leaves does not cancel the call (MCP
   * asks for notifications/cancelled); its answer is dropped.
   */
  private call(session: Session, id: RpcId, params: Record<string, unknown>): Promise<HttpReply> | HttpReply {
    const { name, arguments: input, progressToken } = callParams(params)
    if (session.calls.has(id))
      throw new McpError(
        JsonRpcErrorCode.invalidRequest,
        'Invalid Request: a call with this id is running already',
      )
    // Written before the stream opens is kept for it (an approval asked early).
    let stream: EventSink | undefined
    const early: string[] = []
    const send = (event: string) => (stream ? stream.write(event) : early.push(event))
    // A trusted client that can show forms is asked the call's approval too (./sessionApprovals.ts).
    const question =
      session.elicitsForms && this.deps.approvalsInClient?.(session.client) === true
        ? sessionQuestion(send)
        : undefined
    const call = this.deps.run({
      name,
      input,
      client: session.client,
      session: session.id,
      send,
      ...(progressToken === undefined ? {} : { progressToken }),
      // The call's own log messages go to its session's event stream, from the level the session set.
      logTo: { least: () => session.logLevel, send: (event) => session.stream?.write(event) },
      ...(question ? { approval: question } : {}),
    })
    session.calls.set(id, { cancel: call.cancel, question })
    const answer = call.result.then((result) => {
      session.calls.delete(id)
      return resultJson(id, JSON.stringify(result))
    })
    if (progressToken === undefined && !question) return answer.then((json) => jsonTextResponse(json))
    return {
      status: 200,
      headers: { ...EVENT_STREAM_HEADERS, 'mcp-session-id': session.id },
      body: {
        open(sink) {
          stream = sink
          for (const event of early.splice(0)) sink.write(event)
          sink.onClose(() => (stream = undefined))
          void answer.then((json) => {
            sink.write(sseEvent(json))
            sink.end()
          })
        },
      },
    }
  }

  /**
   * The client's answer to an approval asked through it, taken only while the user still lets this
   * client show approvals (checked now, not when it was asked).
   */
  private answered(session: Session, id: RpcId | undefined, result: unknown): void {
    if (id === undefined) return
    const take = this.deps.approvalsInClient?.(session.client) === true
    for (const { question } of session.calls.values())
      if (question?.asks(id)) return question.answered(result, take)
  }

  /** The client may no longer show approvals: the questions it holds are withdrawn (the side panel still asks). */
  approvalsOff(client: string): void {
    for (const session of this.sessions.values())
      if (session.client === client)
        for (const { question } of session.calls.values())
          question?.withdraw(
            'approvals in this client were turned off; the user decides in the bridge side panel',
          )
  }

  /** GET: the session's one event stream for notifications not tied to a request. */
  private openStream(request: HttpRequest, session: Session): HttpReply {
    if (!accepts(request, 'text/event-stream'))
      return refusal(406, -32000, 'Not Acceptable: the client must accept text/event-stream')
    if (session.stream) return refusal(409, -32000, 'Conflict: only one event stream is allowed per session')
    const sessions = this.sessions
    return {
      status: 200,
      headers: { ...EVENT_STREAM_HEADERS, 'mcp-session-id': session.id },
      body: {
        open(sink) {
          session.stream = sink
          session.streamLeft = false
          sink.onClose(() => {
            if (session.stream !== sink) return
            session.stream = undefined
            session.streamLeft = true
            if (sessions.has(session.id))
              logger.info(
                `MCP client "${neutralizeText(session.client, 64)}" closed its session's event stream`,
              )
          })
        },
      },
    }
  }

  /** `initialize` without a session: a new one, if the client is within its rate. */
  initialize(id: RpcId, params: Record<string, unknown>, client: string): HttpReply {
    let asked: string
    let elicitsForms: boolean
    try {
      ;({ protocolVersion: asked, elicitsForms } = initializeParams(params))
    } catch (error) {
      if (error instanceof McpError) return jsonTextResponse(errorJson(id, error.code, error.message))
      throw error
    }
    if (!this.deps.initializeLimiter.take(client) && !this.replacesEnded(client)) {
      this.refusedTooMany(client)
      const perMinute = this.deps.sessionsPerMinute ?? SESSION_RATE_LIMIT_PER_MIN
      const freesInMs = this.deps.initializeLimiter.freesInMs(client)
      return rateLimitedResponse(
        `MCP client "${neutralizeText(client, 64)}" opened ${perMinute} sessions in the last minute, its limit ` +
          `(sessions it closed with DELETE do not count): the next one frees in ${Math.ceil(freesInMs / 1000)} s`,
        freesInMs,
      )
    }
    const session = this.open(client, elicitsForms)
    const result = {
      protocolVersion: MCP_PROTOCOL_VERSIONS.includes(asked) ? asked : MCP_PROTOCOL_VERSIONS[0],
      capabilities: SERVER_CAPABILITIES,
      serverInfo: { name: 'bridge', version: BRIDGE_VERSION },
      instructions: serverInstructions(this.deps.listToolsJson(client)),
    }
    return jsonTextResponse(resultJson(id, JSON.stringify(result)), 200, { 'mcp-session-id': session.id })
  }

  /**
   * Over its limit, a client may still open a session in place of one of its own that ended: closed
   * with DELETE, or left (its event stream closed, no call or question pending), which is closed now.
   */
  private replacesEnded(client: string): boolean {
    for (const session of [...this.sessions.values()])
      if (session.client === client && session.streamLeft && session.calls.size === 0) {
        this.close(session.id, 'its client left: event stream closed, a new session replaces it')
        this.endedSessions.set(client, (this.endedSessions.get(client) ?? 0) + 1)
      }
    const ended = this.endedSessions.get(client) ?? 0
    if (ended === 0 || !this.deps.endedSessionLimiter.take(client)) return false
    this.endedSessions.set(client, ended - 1)
    return true
  }

  /** A client over its session creation limit is logged once per minute it keeps trying, by name. */
  private refusedTooMany(client: string): void {
    const now = Date.now()
    const last = this.rateLimitLogged.get(client)
    if (last !== undefined && now - last < RATE_LIMIT_WINDOW_MS) return
    this.rateLimitLogged.set(client, now)
    logger.warn(
      `MCP client "${neutralizeText(client, 64)}" opens sessions faster than ${this.deps.sessionsPerMinute ?? SESSION_RATE_LIMIT_PER_MIN} a minute: refused with 429 (other clients are not affected)`,
    )
  }

  private open(client: string, elicitsForms = false): Session {
    const id = randomUUID()
    const session: Session = {
      id,
      client,
      stream: undefined,
      streamLeft: false,
      logLevel: 'debug',
      lastActiveAt: Date.now(),
      lastActiveSeq: ++this.activity,
      calls: new Map(),
      elicitsForms,
    }
    this.sessions.set(id, session)
    logger.info(`MCP session opened; ${this.sessions.size} open`)
    if (this.sessions.size > this.deps.maxSessions) this.evictIdlest(id)
    return session
  }

  /**
   * Keeps the number of sessions bounded when clients never send DELETE: closes the one whose client
   * was silent the longest and has no call running. Its client gets 404 on its next request, which
   * MCP defines as "start a new session".
   */
  private evictIdlest(keep: string): void {
    let idlest: Session | undefined
    for (const session of this.sessions.values())
      if (
        session.id !== keep &&
        session.calls.size === 0 &&
        (!idlest || session.lastActiveSeq < idlest.lastActiveSeq)
      )
        idlest = session
    if (!idlest) return
    logger.warn(`more than ${this.deps.maxSessions} MCP sessions open: closing the one idle the longest`)
    this.close(idlest.id, `evicted after ${Math.round((Date.now() - idlest.lastActiveAt) / 1000)} s idle`)
  }

  /** Ends a session once: its stream ends and its unfinished calls are cancelled. */
  private close(id: string, reason: string): void {
    const session = this.sessions.get(id)
    if (!session) return
    this.sessions.delete(id)
    for (const { cancel } of session.calls.values()) cancel('session closed')
    session.stream?.end()
    logger.info(`MCP session closed (${reason}); ${this.sessions.size} open`)
  }
}
