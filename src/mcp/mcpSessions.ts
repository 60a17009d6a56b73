import { randomUUID } from 'node:crypto'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import {
  CallToolRequestSchema,
  isInitializeRequest,
  ListToolsRequestSchema,
  type CallToolResult,
  type LoggingLevel,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js'
import type { ActorRefFrom, AnyActorRef } from 'xstate'
import { childId, type bridgeSystemMachine } from '../../machines/bridgeSystemMachine'
import { mcpSessionMachine } from '../../machines/mcpSessionMachine'
import type { RateLimiter } from '../http/rateLimit'
import { jsonResponse, rateLimitedResponse } from '../http/responses'
import { log } from '../log'
import { BRIDGE_VERSION } from '../protocol'
import type { ProgressUpdate, ToolCallRequest } from './toolCalls'

const logger = log.withTag('mcp')

export interface McpSessionsDeps {
  /** The root actor system: every session runs as its child `mcpSession:<uuid>`. */
  system(): ActorRefFrom<typeof bridgeSystemMachine>
  /** The tools an agent may see (ask / auto), ready for tools/list. */
  listTools(): Tool[]
  callTool(request: ToolCallRequest): Promise<CallToolResult>
  /** 5 per minute on initialize. */
  initializeLimiter: RateLimiter
  /** Beyond this many open sessions, a new one closes the session idle the longest. */
  maxSessions: number
}

interface Session {
  server: Server
  transport: WebStandardStreamableHTTPServerTransport
  actor: ActorRefFrom<typeof mcpSessionMachine>
  /** Aborted when the session closes: cancels its unfinished calls. */
  closing: AbortController
  /** When the client last sent a request: the eviction order. */
  lastActiveAt: number
  /** Tool calls still running: a session with one is never evicted. */
  callsInFlight: number
}

const rpcError = (status: number, code: number, message: string) =>
  jsonResponse({ jsonrpc: '2.0', error: { code, message }, id: null }, status)

/**
 * MCP over Streamable HTTP: one low-level SDK `Server` and web-standard transport per client
 * session, keyed by the UUID sent back in `mcp-session-id`, and one `mcpSession:<uuid>` child of
 * the root system per session (the root stops it once closed). Tools are raw JSON Schema.
 */
export class McpSessions {
  private readonly sessions = new Map<string, Session>()

  constructor(private readonly deps: McpSessionsDeps) {}

  get count(): number {
    return this.sessions.size
  }

  /** Handles POST, GET and DELETE on /mcp. */
  async handle(request: Request): Promise<Response> {
    const sessionId = request.headers.get('mcp-session-id')
    let parsedBody: unknown
    if (request.method === 'POST') {
      try {
        parsedBody = JSON.parse(await request.text())
      } catch {
        return rpcError(400, -32700, 'Parse error: the body is not valid JSON')
      }
    }
    if (sessionId !== null) {
      const session = this.sessions.get(sessionId)
      if (!session) return rpcError(404, -32001, 'Session not found')
      session.lastActiveAt = Date.now()
      return session.transport.handleRequest(request, { parsedBody })
    }
    const initializing = Array.isArray(parsedBody)
      ? parsedBody.some(isInitializeRequest)
      : isInitializeRequest(parsedBody)
    if (request.method !== 'POST' || !initializing)
      return rpcError(400, -32000, 'Bad Request: Mcp-Session-Id header is required')
    if (!this.deps.initializeLimiter.take()) return rateLimitedResponse()
    const transport = await this.open()
    return transport.handleRequest(request, { parsedBody })
  }

  /** notifications/tools/list_changed to every session. */
  toolsChanged(): void {
    for (const session of this.sessions.values()) session.server.sendToolListChanged().catch(() => undefined)
  }

  /** A plugin log entry as notifications/message to every session (per session log level applies). */
  log(level: LoggingLevel, logger: string, data: unknown): void {
    for (const [id, session] of this.sessions)
      session.server.sendLoggingMessage({ level, logger, data }, id).catch(() => undefined)
  }

  async closeAll(): Promise<void> {
    for (const session of [...this.sessions.values()])
      session.actor.send({ type: 'session.close', reason: 'daemon stopping' })
    await Promise.resolve()
  }

  /**
   * Keeps the number of sessions bounded when clients never send DELETE: closes the one whose client
   * was silent the longest and has no call running. Its client gets 404 on its next request, which
   * MCP defines as "start a new session".
   */
  private evictIdlest(keep: string): void {
    let idlest: [string, Session] | undefined
    for (const entry of this.sessions)
      if (
        entry[0] !== keep &&
        entry[1].callsInFlight === 0 &&
        (!idlest || entry[1].lastActiveAt < idlest[1].lastActiveAt)
      )
        idlest = entry
    if (!idlest) return
    logger.warn(`more than ${this.deps.maxSessions} MCP sessions open: closing the one idle the longest`)
    idlest[1].actor.send({
      type: 'session.close',
      reason: `evicted after ${Math.round((Date.now() - idlest[1].lastActiveAt) / 1000)} s idle`,
    })
  }

  private async open(): Promise<WebStandardStreamableHTTPServerTransport> {
    const server = new Server(
      { name: 'bridge', version: BRIDGE_VERSION },
      { capabilities: { tools: { listChanged: true }, logging: {} } },
    )
    const closing = new AbortController()
    let session: Session | undefined
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        const logic = mcpSessionMachine.provide({
          actions: {
            disposeSession: (_, { reason }) => {
              this.sessions.delete(id)
              closing.abort()
              logger.info(`MCP session closed (${reason}); ${this.sessions.size} open`)
              // Closing the transport calls server.onclose, which finds the actor done.
              server.close().catch(() => undefined)
            },
          },
        })
        const system = this.deps.system()
        system.send({ type: 'mcpSession.spawn', logic, input: { sessionId: id, openedAt: Date.now() } })
        const children = system.getSnapshot().children as Record<string, AnyActorRef | undefined>
        const actor = children[childId('mcpSession', id)] as
          ActorRefFrom<typeof mcpSessionMachine> | undefined
        if (!actor) {
          logger.error('MCP session could not start inside the daemon')
          closing.abort()
          server.close().catch(() => undefined)
          return
        }
        actor.subscribe({ error: (error: unknown) => logger.error('MCP session actor failed:', error) })
        session = { server, transport, actor, closing, lastActiveAt: Date.now(), callsInFlight: 0 }
        this.sessions.set(id, session)
        logger.info(`MCP session opened; ${this.sessions.size} open`)
        if (this.sessions.size > this.deps.maxSessions) this.evictIdlest(id)
      },
      onsessionclosed: () => session?.actor.send({ type: 'session.close', reason: 'DELETE /mcp' }),
    })
    server.onclose = () => session?.actor.send({ type: 'session.close', reason: 'transport closed' })
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: this.deps.listTools() }))
    server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
      const token = request.params._meta?.progressToken
      const signal = AbortSignal.any([extra.signal, closing.signal])
      const sendProgress =
        token === undefined
          ? undefined
          : (update: ProgressUpdate) =>
              void extra
                .sendNotification({
                  method: 'notifications/progress',
                  params: { progressToken: token, ...update },
                })
                .catch(() => undefined)
      const current = session
      if (current) current.callsInFlight++
      return this.deps
        .callTool({
          name: request.params.name,
          input: request.params.arguments ?? {},
          signal,
          ...(sendProgress ? { sendProgress } : {}),
        })
        .finally(() => {
          if (current) current.callsInFlight--
        })
    })
    await server.connect(transport)
    return transport
  }
}
