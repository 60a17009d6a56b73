import { randomUUID } from 'node:crypto'
import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import type {
  CallToolRequestSchema,
  CallToolResult,
  isInitializeRequest,
  ListToolsRequestSchema,
  LoggingLevel,
  Tool,
} from '@modelcontextprotocol/sdk/types.js'
import type { ActorRefFrom } from 'xstate'
import { systemIdOf, type bridgeSystemMachine } from '../../machines/bridgeSystemMachine'
import type { mcpSessionMachine } from '../../machines/mcpSessionMachine'
import type { RateLimiter } from '../http/rateLimit'
import { jsonResponse, rateLimitedResponse } from '../http/responses'
import { log } from '../log'
import { BRIDGE_VERSION } from '../protocol'
import type { ProgressUpdate, ToolCallRequest } from './toolCalls'

const logger = log.withTag('mcp')

export interface McpSessionsDeps {
  /** The tools an agent may see (ask / auto): the catalog's ready-to-send `tools/list` result. */
  listTools(): { tools: readonly Tool[] }
  callTool(request: ToolCallRequest): Promise<CallToolResult>
  /** 5 per minute on initialize, for each client (keyed by its name): one client cannot lock out the others. */
  initializeLimiter: RateLimiter
  /** Beyond this many open sessions, a new one closes the session idle the longest. */
  maxSessions: number
}

type SessionEffects = Parameters<typeof mcpSessionMachine.provide>[0]

interface Session {
  /** The MCP client's name, from the credential that opened the session. */
  client: string
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

/**
 * The SDK's server side, imported on first use: it is the daemon's largest import (zod included), and
 * /health, /ws and /reload never need it. The daemon starts loading it once it is listening.
 */
let sdk:
  | Promise<{
      Server: typeof Server
      WebStandardStreamableHTTPServerTransport: typeof WebStandardStreamableHTTPServerTransport
      CallToolRequestSchema: typeof CallToolRequestSchema
      ListToolsRequestSchema: typeof ListToolsRequestSchema
      isInitializeRequest: typeof isInitializeRequest
    }>
  | undefined
export const loadMcpSdk = () =>
  (sdk ??= Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]).then(([server, transport, types]) => ({
    Server: server.Server,
    WebStandardStreamableHTTPServerTransport: transport.WebStandardStreamableHTTPServerTransport,
    CallToolRequestSchema: types.CallToolRequestSchema,
    ListToolsRequestSchema: types.ListToolsRequestSchema,
    isInitializeRequest: types.isInitializeRequest,
  })))

const rpcError = (status: number, code: number, message: string) =>
  jsonResponse({ jsonrpc: '2.0', error: { code, message }, id: null }, status)

/**
 * MCP over Streamable HTTP: one low-level SDK `Server` and web-standard transport per client
 * session, keyed by the UUID sent back in `mcp-session-id`, and one `mcpSession:<uuid>` child of
 * the root system per session (the root stops it once closed). Tools are raw JSON Schema.
 */
export class McpSessions {
  private readonly sessions = new Map<string, Session>()
  private system: ActorRefFrom<typeof bridgeSystemMachine> | undefined
  /** The effects of the root system's mcpSession children, for `.provide()`. */
  readonly sessionEffects: SessionEffects = {
    actions: { disposeSession: ({ context }, { reason }) => this.dispose(context.sessionId, reason) },
  }

  constructor(private readonly deps: McpSessionsDeps) {}

  /** Takes the started root system: every session runs as its child `mcpSession:<uuid>`. */
  attach(system: ActorRefFrom<typeof bridgeSystemMachine>): void {
    this.system = system
  }

  get count(): number {
    return this.sessions.size
  }

  /** Handles POST, GET and DELETE on /mcp for the client named `client`. */
  async handle(request: Request, client: string): Promise<Response> {
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
      // A session belongs to the client that opened it: another credential gets the same 404.
      if (session?.client !== client) return rpcError(404, -32001, 'Session not found')
      session.lastActiveAt = Date.now()
      return session.transport.handleRequest(request, { parsedBody })
    }
    const { isInitializeRequest } = await loadMcpSdk()
    const initializing = Array.isArray(parsedBody)
      ? parsedBody.some(isInitializeRequest)
      : isInitializeRequest(parsedBody)
    if (request.method !== 'POST' || !initializing)
      return rpcError(400, -32000, 'Bad Request: Mcp-Session-Id header is required')
    if (!this.deps.initializeLimiter.take(client)) return rateLimitedResponse()
    const transport = await this.open(client)
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

  /** The client was removed or its token replaced: its sessions end now (their calls are cancelled). */
  closeClient(client: string): void {
    for (const session of [...this.sessions.values()])
      if (session.client === client) session.actor.send({ type: 'session.close', reason: 'client removed' })
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

  /** The session's actor reached `closed`: its transport closes and its unfinished calls are cancelled. */
  private dispose(id: string, reason: string): void {
    const session = this.sessions.get(id)
    if (!session) return
    this.sessions.delete(id)
    session.closing.abort()
    logger.info(`MCP session closed (${reason}); ${this.sessions.size} open`)
    // Closing the transport calls server.onclose, which finds the actor done.
    session.server.close().catch(() => undefined)
  }

  private actorOf(id: string): ActorRefFrom<typeof mcpSessionMachine> | undefined {
    return this.system?.system.get(systemIdOf('mcpSession', id)) as
      ActorRefFrom<typeof mcpSessionMachine> | undefined
  }

  private async open(client: string): Promise<WebStandardStreamableHTTPServerTransport> {
    const {
      Server,
      WebStandardStreamableHTTPServerTransport,
      CallToolRequestSchema,
      ListToolsRequestSchema,
    } = await loadMcpSdk()
    const server = new Server(
      { name: 'bridge', version: BRIDGE_VERSION },
      { capabilities: { tools: { listChanged: true }, logging: {} } },
    )
    const closing = new AbortController()
    let session: Session | undefined
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        this.system?.send({ type: 'mcpSession.spawn', input: { sessionId: id, openedAt: Date.now() } })
        const actor = this.actorOf(id)
        if (!actor) {
          logger.error('MCP session could not start inside the daemon')
          closing.abort()
          server.close().catch(() => undefined)
          return
        }
        actor.subscribe({ error: (error: unknown) => logger.error('MCP session actor failed:', error) })
        session = { client, server, transport, actor, closing, lastActiveAt: Date.now(), callsInFlight: 0 }
        this.sessions.set(id, session)
        logger.info(`MCP session opened; ${this.sessions.size} open`)
        if (this.sessions.size > this.deps.maxSessions) this.evictIdlest(id)
      },
      onsessionclosed: () => session?.actor.send({ type: 'session.close', reason: 'DELETE /mcp' }),
    })
    server.onclose = () => session?.actor.send({ type: 'session.close', reason: 'transport closed' })
    server.setRequestHandler(ListToolsRequestSchema, () => this.deps.listTools() as { tools: Tool[] })
    server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
      const current = session
      if (!current) throw new Error('tools/call before the session was initialized')
      const token = request.params._meta?.progressToken
      const onProgress =
        token === undefined
          ? undefined
          : (update: ProgressUpdate) =>
              void extra
                .sendNotification({
                  method: 'notifications/progress',
                  params: { progressToken: token, ...update },
                })
                .catch(() => undefined)
      current.callsInFlight++
      return this.deps
        .callTool({
          name: request.params.name,
          input: request.params.arguments ?? {},
          client: current.client,
          session: extra.sessionId ?? '',
          signal: extra.signal,
          sessionSignal: current.closing.signal,
          ...(onProgress ? { onProgress } : {}),
        })
        .finally(() => current.callsInFlight--)
    })
    await server.connect(transport)
    return transport
  }
}
