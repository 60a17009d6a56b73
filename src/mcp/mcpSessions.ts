/**
 * MCP over Streamable HTTP, served by the daemon itself: one session per client `initialize`, keyed
 * by the UUID sent back in `Mcp-Session-Id`. A session is a plain object, not an actor: it has one
 * state (open) and one end (closed and forgotten, once), with nothing to wait on in between, so a
 * machine would only restate `close()`. Its calls each live in their own actor (src/calls). A POST carries one message: a request is answered as JSON, or as an
 * event stream when it asked for progress; a notification gets 202. GET opens the session's one event
 * stream for notifications (`tools/list_changed`, plugin logs); DELETE ends the session.
 *
 * Serving the protocol here, not through the SDK's server, keeps the hot path to one parse and one
 * write: `tools/list` is a cached string, a call's answer one JSON body.
 */
import { randomUUID } from 'node:crypto'
import type { LoggingLevel } from '@modelcontextprotocol/sdk/types.js'
import type { EventSink, HttpReply, HttpRequest } from '../http/engine'
import type { RateLimiter } from '../http/rateLimit'
import { jsonTextResponse, rateLimitedResponse } from '../http/responses'
import { log } from '../log'
import { BRIDGE_VERSION, MCP_PROTOCOL_VERSIONS } from '../protocol'
import { JsonRpcErrorCode } from '../protocol/errors'
import { neutralizeText } from '../protocol/untrustedText'
import {
  callParams,
  errorJson,
  initializeParams,
  LOGGING_LEVELS,
  loggingLevel,
  McpError,
  notificationJson,
  readMessage,
  resultJson,
  sseEvent,
  type RpcId,
} from './mcpMessages'
import { browserToolNarrowing } from '../tools'
import type { CallTool, ProgressUpdate } from '../calls/toolCalls'
import { toCallToolResult } from './toolResults'

const logger = log.withTag('mcp')

export interface McpSessionsDeps {
  /** The tools an agent may see (ask / auto): the catalog's `tools/list` result, serialized. */
  listToolsJson(): string
  /** Runs one tool call to its audited outcome (src/calls/toolCalls.ts). */
  callTool: CallTool
  /** A result's text past this many bytes is cut, with a hint on how to ask for less. */
  resultMaxBytes: number
  /** 5 per minute on initialize, for each client (keyed by its name): one client cannot lock out the others. */
  initializeLimiter: RateLimiter
  /** Beyond this many open sessions, a new one closes the session idle the longest. */
  maxSessions: number
}

interface Session {
  id: string
  /** The MCP client's name, from the credential that opened the session. */
  client: string
  /** The session's GET event stream, while one is open. */
  stream: EventSink | undefined
  /** Below this, plugin log notifications are not sent (logging/setLevel); all by default. */
  logLevel: LoggingLevel
  /** When the client last sent a request: the eviction order. */
  lastActiveAt: number
  /** Tool calls still running, by request id, each with its cancel: a session with one is never evicted. */
  calls: Map<RpcId, AbortController>
}

const SERVER_CAPABILITIES = { tools: { listChanged: true }, logging: {} }
const EVENT_STREAM_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' }

/** An HTTP-level refusal with a JSON-RPC error body, as MCP clients expect them. */
const refusal = (status: number, code: number, message: string, headers: Record<string, string> = {}) =>
  jsonTextResponse(errorJson(null, code, message), status, headers)

const sessionNotFound = () => refusal(404, -32001, 'Session not found')
const sessionRequired = () => refusal(400, -32000, 'Bad Request: Mcp-Session-Id header is required')

const accepts = (request: HttpRequest, type: string) => (request.header('accept') ?? '').includes(type)

export class McpSessions {
  private readonly sessions = new Map<string, Session>()

  constructor(private readonly deps: McpSessionsDeps) {}

  get count(): number {
    return this.sessions.size
  }

  /** Distinct MCP clients with an open session: one agent reconnecting is still one client. */
  get clientCount(): number {
    return new Set([...this.sessions.values()].map((session) => session.client)).size
  }

  /** Handles POST, GET and DELETE on /mcp for the client named `client`. */
  async handle(request: HttpRequest, client: string): Promise<HttpReply> {
    if (request.method === 'POST') return this.post(request, client)
    const session = this.sessionOf(request, client)
    if (!('id' in session)) return session
    if (request.method === 'DELETE') {
      this.close(session.id, 'DELETE /mcp')
      return { status: 200, headers: {} }
    }
    return this.openStream(request, session)
  }

  /** notifications/tools/list_changed to every session. */
  toolsChanged(): void {
    const event = sseEvent(notificationJson('notifications/tools/list_changed', {}))
    for (const session of this.sessions.values()) session.stream?.write(event)
  }

  /** A plugin log entry as notifications/message to every session whose level lets it through. */
  log(level: LoggingLevel, logger: string, data: unknown): void {
    const severity = LOGGING_LEVELS.indexOf(level)
    let event: string | undefined
    for (const session of this.sessions.values()) {
      if (!session.stream || severity < LOGGING_LEVELS.indexOf(session.logLevel)) continue
      event ??= sseEvent(notificationJson('notifications/message', { level, logger, data }))
      session.stream.write(event)
    }
  }

  /** The client was removed or its token replaced: its sessions end now (their calls are cancelled). */
  closeClient(client: string): void {
    for (const session of [...this.sessions.values()])
      if (session.client === client) this.close(session.id, 'client removed')
  }

  async closeAll(): Promise<void> {
    for (const id of [...this.sessions.keys()]) this.close(id, 'daemon stopping')
    await Promise.resolve()
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
    return session
  }

  private async post(request: HttpRequest, client: string): Promise<HttpReply> {
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
    if (request.header('mcp-session-id') === null) {
      if (message.kind === 'request' && message.method === 'initialize')
        return this.initialize(message.id, message.params, client)
      return sessionRequired()
    }
    const session = this.sessionOf(request, client)
    if (!('id' in session)) return session
    if (message.kind === 'answer') return { status: 202, headers: {} }
    if (message.kind === 'notification') {
      this.notified(session, message.method, message.params)
      return { status: 202, headers: {} }
    }
    try {
      return await this.answer(session, message.id, message.method, message.params)
    } catch (error) {
      if (error instanceof McpError) return jsonTextResponse(errorJson(message.id, error.code, error.message))
      logger.error(`${neutralizeText(message.method, 64)} failed:`, error)
      return jsonTextResponse(
        errorJson(message.id, JsonRpcErrorCode.internalError, 'internal error; see server.log'),
      )
    }
  }

  private async answer(
    session: Session,
    id: RpcId,
    method: string,
    params: Record<string, unknown>,
  ): Promise<HttpReply> {
    switch (method) {
      case 'tools/list':
        return jsonTextResponse(resultJson(id, this.deps.listToolsJson()))
      case 'tools/call':
        return this.call(session, id, params)
      case 'ping':
        return jsonTextResponse(resultJson(id, '{}'))
      case 'logging/setLevel':
        session.logLevel = loggingLevel(params)
        return jsonTextResponse(resultJson(id, '{}'))
      case 'initialize':
        throw new McpError(
          JsonRpcErrorCode.invalidRequest,
          'Invalid Request: the session is initialized already',
        )
      default:
        throw new McpError(JsonRpcErrorCode.methodNotFound, `Method not found: ${method.slice(0, 64)}`)
    }
  }

  private notified(session: Session, method: string, params: Record<string, unknown>): void {
    // The client gave up on a call: it ends as cancelled (and is audited so).
    if (method === 'notifications/cancelled') {
      const id = params.requestId
      if (typeof id === 'string' || typeof id === 'number') session.calls.get(id)?.abort('client cancelled')
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
    let stream: EventSink | undefined
    const onProgress =
      progressToken === undefined
        ? undefined
        : (update: ProgressUpdate) =>
            stream?.write(sseEvent(notificationJson('notifications/progress', { progressToken, ...update })))
    const cancel = new AbortController()
    session.calls.set(id, cancel)
    const answer = this.deps
      .callTool({
        name,
        input,
        client: session.client,
        session: session.id,
        signal: cancel.signal,
        ...(onProgress ? { onProgress } : {}),
      })
      .then((outcome) => {
        session.calls.delete(id)
        const result = toCallToolResult(outcome, this.deps.resultMaxBytes, browserToolNarrowing(name))
        return resultJson(id, JSON.stringify(result))
      })
    if (progressToken === undefined) return answer.then((json) => jsonTextResponse(json))
    return {
      status: 200,
      headers: { ...EVENT_STREAM_HEADERS, 'mcp-session-id': session.id },
      body: {
        open(sink) {
          stream = sink
          sink.onClose(() => (stream = undefined))
          void answer.then((json) => {
            sink.write(sseEvent(json))
            sink.end()
          })
        },
      },
    }
  }

  /** GET: the session's one event stream for notifications not tied to a request. */
  private openStream(request: HttpRequest, session: Session): HttpReply {
    if (!accepts(request, 'text/event-stream'))
      return refusal(406, -32000, 'Not Acceptable: the client must accept text/event-stream')
    if (session.stream) return refusal(409, -32000, 'Conflict: only one event stream is allowed per session')
    return {
      status: 200,
      headers: { ...EVENT_STREAM_HEADERS, 'mcp-session-id': session.id },
      body: {
        open(sink) {
          session.stream = sink
          sink.onClose(() => {
            if (session.stream === sink) session.stream = undefined
          })
        },
      },
    }
  }

  private initialize(id: RpcId, params: Record<string, unknown>, client: string): HttpReply {
    let asked: string
    try {
      asked = initializeParams(params).protocolVersion
    } catch (error) {
      if (error instanceof McpError) return jsonTextResponse(errorJson(id, error.code, error.message))
      throw error
    }
    if (!this.deps.initializeLimiter.take(client)) return rateLimitedResponse()
    const session = this.open(client)
    const result = {
      protocolVersion: MCP_PROTOCOL_VERSIONS.includes(asked) ? asked : MCP_PROTOCOL_VERSIONS[0],
      capabilities: SERVER_CAPABILITIES,
      serverInfo: { name: 'bridge', version: BRIDGE_VERSION },
    }
    return jsonTextResponse(resultJson(id, JSON.stringify(result)), 200, { 'mcp-session-id': session.id })
  }

  private open(client: string): Session {
    const id = randomUUID()
    const session: Session = {
      id,
      client,
      stream: undefined,
      logLevel: 'debug',
      lastActiveAt: Date.now(),
      calls: new Map(),
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
        (!idlest || session.lastActiveAt < idlest.lastActiveAt)
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
    for (const cancel of session.calls.values()) cancel.abort('session closed')
    session.stream?.end()
    logger.info(`MCP session closed (${reason}); ${this.sessions.size} open`)
  }
}
