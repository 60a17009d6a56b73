/**
 * `/mcp` for the stateless revision (2026-07-28): no `initialize`, no session. Each POST is one
 * request that says in its `_meta` which version it speaks and what the client can do; who the client
 * is comes from its credential, never from the request, so everything keyed by the client (its
 * approvals, its tab group, its audit entries, its limits) holds across requests. Served here:
 * `server/discover`, `tools/list` (with cache hints), `tools/call` (progress and the plugin's log
 * messages on the request's own event stream when it asks), `subscriptions/listen` (tool list
 * changes). Every result carries `resultType` and the server's identity; every error the request's id.
 *
 * Every request first passes the revision's checks (`readStatelessRequest`): no session, so each
 * request says who it is and what it speaks. `_meta` must carry the protocol version and the
 * client's capabilities (the client's name is optional), the `MCP-Protocol-Version` header must name
 * the same version, and the `Mcp-Method` / `Mcp-Name` headers must repeat the body's method and name
 * (whitespace around a header value is trimmed, RFC 9110 section 5.5; values are case-sensitive).
 * Pure: the request's headers and body in, the request's facts or the refusal to send out.
 */
import type { LoggingLevel } from '@modelcontextprotocol/sdk/types.js'
import type { EventSink, HttpReply, HttpRequest } from '../http/engine'
import { jsonTextResponse } from '../http/responses'
import { log } from '../log'
import { MCP_PROTOCOL_VERSIONS } from '../protocol'
import { JsonRpcErrorCode } from '../protocol/errors'
import { neutralizeText } from '../protocol/untrustedText'
import {
  callParams,
  LOGGING_LEVELS,
  McpError,
  resultJson,
  sseEvent,
  type CallRunner,
  type RpcId,
  type RunningCall,
} from './callRunner'
import type { ApprovalChannel } from '../calls/toolCalls'
import type { ApprovalRequest, Decision } from '../protocol/messages'
import { approvalElicitation, createRequestStates, decisionOf } from './clientApproval'
import { ListenStreams } from './listenStreams'
import {
  errorReply,
  EVENT_STREAM_HEADERS,
  META,
  RESULT_META,
  resultText,
  SERVER_INFO,
} from './statelessResults'
import { serverInstructions } from './instructions'

const logger = log.withTag('mcp')

// The checks every stateless request passes before it is served.

/** The revisions served without a session, newest first. */
export const STATELESS_VERSIONS: readonly string[] = ['2026-07-28']

/** Every revision `/mcp` speaks: the stateless ones, then those with sessions. */
export const ALL_VERSIONS: readonly string[] = [...STATELESS_VERSIONS, ...MCP_PROTOCOL_VERSIONS]

/** JSON-RPC errors the stateless revision adds. */
export const StatelessErrorCode = {
  /** A header disagrees with the body, or a required one is missing. */
  headerMismatch: -32020,
  /** The request needs a client capability its `_meta` did not declare. */
  missingClientCapability: -32021,
  /** The server does not speak the version the request names. */
  unsupportedProtocolVersion: -32022,
} as const

export interface StatelessFacts {
  protocolVersion: string
  /** What the client can do for this request only (MCP: never inferred from earlier requests). */
  clientCapabilities: Record<string, unknown>
  clientInfo?: { name: string; version: string }
  /** Absent: no log messages for this request. */
  logLevel?: LoggingLevel
  progressToken?: RpcId
}

export interface StatelessRefusal {
  status: number
  code: number
  message: string
  data?: Record<string, unknown>
}

type Headers = (name: string) => string | null

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

const refusal = (code: number, message: string, data?: Record<string, unknown>): StatelessRefusal => ({
  status: 400,
  code,
  message,
  ...(data ? { data } : {}),
})

/** The body field a method's `Mcp-Name` header repeats, if it has one. */
function nameOf(method: string, params: Record<string, unknown>): string | undefined {
  const value =
    method === 'tools/call' || method === 'prompts/get'
      ? params.name
      : method === 'resources/read'
        ? params.uri
        : undefined
  return typeof value === 'string' ? value : undefined
}

/**
 * True when a POST without a session speaks the stateless revision: its `MCP-Protocol-Version` header
 * names no revision with sessions (or, absent, its `_meta` names a version). Otherwise it is a client
 * of a session revision: its `initialize` opens a session, anything else lacks one. An `initialize`
 * of the stateless revision is answered as the method it removed.
 */
export function isStatelessRequest(headers: Headers, params: Record<string, unknown>): boolean {
  const header = headers('mcp-protocol-version')?.trim()
  if (header === undefined || header === '')
    return isObject(params._meta) && params._meta[META.protocolVersion] !== undefined
  return !MCP_PROTOCOL_VERSIONS.includes(header)
}

/** Checks one stateless request: its facts, or what to refuse it with (always HTTP 400). */
export function readStatelessRequest(
  headers: Headers,
  method: string,
  params: Record<string, unknown>,
): { ok: true; facts: StatelessFacts } | { ok: false; refusal: StatelessRefusal } {
  const fail = (r: StatelessRefusal) => ({ ok: false as const, refusal: r })
  const header = headers('mcp-protocol-version')?.trim()
  if (!header)
    return fail(
      refusal(
        StatelessErrorCode.headerMismatch,
        'Header mismatch: the MCP-Protocol-Version header is missing',
      ),
    )
  const meta = params._meta
  const missing = [META.protocolVersion, META.clientCapabilities].filter(
    (key) => !isObject(meta) || meta[key] === undefined,
  )
  if (!isObject(meta) || missing.length > 0)
    return fail(
      refusal(JsonRpcErrorCode.invalidParams, `Invalid params: _meta must carry ${missing.join(' and ')}`),
    )
  const version = meta[META.protocolVersion]
  if (typeof version !== 'string')
    return fail(
      refusal(
        JsonRpcErrorCode.invalidParams,
        `Invalid params: _meta ${META.protocolVersion} must be a string`,
      ),
    )
  if (version !== header)
    return fail(
      refusal(
        StatelessErrorCode.headerMismatch,
        'Header mismatch: MCP-Protocol-Version does not match _meta io.modelcontextprotocol/protocolVersion',
      ),
    )
  if (!STATELESS_VERSIONS.includes(version))
    return fail(
      refusal(
        StatelessErrorCode.unsupportedProtocolVersion,
        `Unsupported protocol version: ${version.slice(0, 64)} (without a session bridge speaks ${STATELESS_VERSIONS.join(', ')}; ${MCP_PROTOCOL_VERSIONS.join(', ')} start with initialize)`,
        {
          supported: [...ALL_VERSIONS],
          requested: version,
        },
      ),
    )
  const capabilities = meta[META.clientCapabilities]
  if (!isObject(capabilities))
    return fail(
      refusal(
        JsonRpcErrorCode.invalidParams,
        `Invalid params: _meta ${META.clientCapabilities} must be an object`,
      ),
    )
  const info = meta[META.clientInfo]
  if (
    info !== undefined &&
    (!isObject(info) || typeof info.name !== 'string' || typeof info.version !== 'string')
  )
    return fail(
      refusal(
        JsonRpcErrorCode.invalidParams,
        `Invalid params: _meta ${META.clientInfo} must have a name and a version`,
      ),
    )
  const level = meta[META.logLevel]
  if (
    level !== undefined &&
    (typeof level !== 'string' || !(LOGGING_LEVELS as readonly string[]).includes(level))
  )
    return fail(
      refusal(
        JsonRpcErrorCode.invalidParams,
        `Invalid params: _meta ${META.logLevel} must be one of ${LOGGING_LEVELS.join(', ')}`,
      ),
    )
  const token = meta.progressToken
  if (
    token !== undefined &&
    typeof token !== 'string' &&
    (typeof token !== 'number' || !Number.isFinite(token))
  )
    return fail(
      refusal(
        JsonRpcErrorCode.invalidParams,
        'Invalid params: _meta.progressToken must be a string or a number',
      ),
    )
  const methodHeader = headers('mcp-method')?.trim()
  if (methodHeader !== method)
    return fail(
      refusal(
        StatelessErrorCode.headerMismatch,
        methodHeader === undefined
          ? 'Header mismatch: the Mcp-Method header is missing'
          : 'Header mismatch: Mcp-Method does not match the body method',
      ),
    )
  const name = nameOf(method, params)
  if (name !== undefined) {
    const nameHeader = headers('mcp-name')?.trim()
    if (nameHeader !== name)
      return fail(
        refusal(
          StatelessErrorCode.headerMismatch,
          nameHeader === undefined
            ? 'Header mismatch: the Mcp-Name header is missing'
            : 'Header mismatch: Mcp-Name does not match the body',
        ),
      )
  }
  return {
    ok: true,
    facts: {
      protocolVersion: version,
      clientCapabilities: capabilities,
      ...(isObject(info) ? { clientInfo: { name: String(info.name), version: String(info.version) } } : {}),
      ...(level === undefined ? {} : { logLevel: level as LoggingLevel }),
      ...(token === undefined ? {} : { progressToken: token }),
    },
  }
}

export interface StatelessRevisionDeps {
  /** The tools this client may see (within its scope), serialized. */
  listToolsJson(client: string): string
  /** The one tools/call runner (./callRunner.ts). */
  run: CallRunner
  /** True for a client the user trusts to show its approvals. */
  approvalsInClient?(client: string): boolean
  /** Event streams of `subscriptions/listen` one client may hold open at once. */
  maxListenStreams?: number
}

const CAPABILITIES = { tools: { listChanged: true }, logging: {} }
/**
 * How long a client may keep `tools/list` and `server/discover`: not at all, since the user changes
 * permissions (and so the list) at any moment; a client that wants to know listens.
 */
const CACHE_HINTS = { ttlMs: 0, cacheScope: 'private' }
/** How long a call's result waits for the retry of a client that got `input_required`, after the call ends. */
const WAITING_KEPT_MS = 60_000
/** The key of the approval in `inputRequests` / `inputResponses`. */
const APPROVAL_INPUT = 'approval'

/** An `input_required` result asking the user, through the client, to decide an approval. */
const inputRequired = (id: RpcId, request: ApprovalRequest, requestState: string): string =>
  resultJson(
    id,
    JSON.stringify({
      resultType: 'input_required',
      inputRequests: {
        [APPROVAL_INPUT]: { method: 'elicitation/create', params: approvalElicitation(request) },
      },
      requestState,
      _meta: RESULT_META,
    }),
  )

/**
 * One call's approval put to a stateless client (the call's `RequestContext.approval`): the open
 * question, its answer, and who hears it open (the request that gets `input_required`).
 */
interface StatelessQuestion extends ApprovalChannel {
  /** The open question, while the approval is open. */
  readonly request: ApprovalRequest | undefined
  /** The client's answer (taken only while open). */
  answer(decision: Decision): void
  /** Hears the approval open, once set. */
  onOpen?: ((request: ApprovalRequest) => void) | undefined
}

function statelessQuestion(): StatelessQuestion {
  let open: { request: ApprovalRequest; answer: (decision: Decision) => void } | undefined
  const question: StatelessQuestion = {
    get request() {
      return open?.request
    },
    open(request, answer) {
      open = { request, answer }
      question.onOpen?.(request)
    },
    close: () => (open = undefined),
    answer: (decision) => open?.answer(decision),
  }
  return question
}

/** One method of this revision: the request's client, id, params and facts. */
type StatelessHandler = (
  client: string,
  id: RpcId,
  params: Record<string, unknown>,
  facts: StatelessFacts,
) => HttpReply | Promise<HttpReply>

export class StatelessRevision {
  /** Running calls by client, then by request id: for notifications/cancelled and a client's removal. */
  private readonly calls = new Map<string, Map<RpcId, RunningCall['cancel']>>()
  private readonly listeners: ListenStreams
  /** Calls whose approval was put to the client (`input_required`), by call id, until the retry. */
  private readonly waiting = new Map<string, { call: RunningCall; question: StatelessQuestion }>()
  private readonly states = createRequestStates()

  constructor(private readonly deps: StatelessRevisionDeps) {
    this.listeners = new ListenStreams(deps.maxListenStreams)
  }

  /** One stateless request of `client` (method and params read already). */
  handle(
    request: HttpRequest,
    client: string,
    id: RpcId,
    method: string,
    params: Record<string, unknown>,
  ): HttpReply | Promise<HttpReply> {
    const read = readStatelessRequest((name) => request.header(name), method, params)
    if (!read.ok) return errorReply(id, read.refusal.code, read.refusal.message, read.refusal.data)
    const failed = (error: unknown): HttpReply => {
      if (error instanceof McpError) return errorReply(id, error.code, error.message)
      logger.error(`${neutralizeText(method, 64)} failed:`, error)
      return errorReply(id, JsonRpcErrorCode.internalError, 'internal error; see server.log')
    }
    try {
      if (!Object.hasOwn(this.handlers, method))
        throw new McpError(JsonRpcErrorCode.methodNotFound, `Method not found: ${method.slice(0, 64)}`)
      const reply = this.handlers[method]!(client, id, params, read.facts)
      return reply instanceof Promise ? reply.catch(failed) : reply
    } catch (error) {
      return failed(error)
    }
  }

  /** A notification without a session: `notifications/cancelled` ends the client's named call or listen stream. */
  notified(client: string, method: string, params: Record<string, unknown>): void {
    if (method !== 'notifications/cancelled') return
    const id = params.requestId
    if (typeof id !== 'string' && typeof id !== 'number') return
    this.calls.get(client)?.get(id)?.('client cancelled')
    // A listen stream the client closes is cancelled the same way.
    this.listeners.cancel(client, id)
  }

  /** notifications/tools/list_changed on every listen stream that asked for it. */
  toolsChanged(): void {
    this.listeners.toolsChanged()
  }

  /** The client was removed: its calls are cancelled and its listen streams end. */
  closeClient(client: string): void {
    for (const cancel of this.calls.get(client)?.values() ?? []) cancel('client removed')
    this.listeners.closeClient(client)
  }

  /** The daemon stops: every listen stream gets its closing result, then ends. */
  closeAll(): void {
    this.listeners.closeAll()
  }

  get listening(): number {
    return this.listeners.count
  }

  /** The methods served without a session, one handler each. */
  private readonly handlers: Record<string, StatelessHandler> = {
    'server/discover': (client, id) =>
      jsonTextResponse(
        resultJson(
          id,
          resultText({
            supportedVersions: ALL_VERSIONS,
            capabilities: CAPABILITIES,
            serverInfo: SERVER_INFO,
            instructions: serverInstructions(this.deps.listToolsJson(client)),
            ...CACHE_HINTS,
          }),
        ),
      ),
    'tools/list': (client, id) => {
      // The catalog's cached `{"tools":[...]}`, with the revision's fields put in front.
      const head = JSON.stringify({ resultType: 'complete', ...CACHE_HINTS, _meta: RESULT_META })
      return jsonTextResponse(
        resultJson(id, `${head.slice(0, -1)},${this.deps.listToolsJson(client).slice(1)}`),
      )
    },
    'tools/call': (client, id, params, facts) => this.call(client, id, params, facts),
    'subscriptions/listen': (client, id, params) => this.listeners.open(client, id, params),
  }

  /**
   * A tool call. One JSON body, unless the request asked for progress or log messages: then an event
   * stream carries them and then the answer. The call is the client's, by its credential. A client the
   * user trusts to show approvals, whose request can show a form (elicitation), gets an `ask` call's
   * approval as an `input_required` result; its retry (same tool, `requestState`, the answer in
   * `inputResponses`) decides, unless the side panel did first, and gets the call's result.
   */
  private call(
    client: string,
    id: RpcId,
    params: Record<string, unknown>,
    facts: StatelessFacts,
  ): HttpReply | Promise<HttpReply> {
    const { name, arguments: input } = callParams(params)
    if (
      'inputResponses' in params &&
      (!isObject(params.inputResponses) || !Object.values(params.inputResponses).every(isObject))
    )
      throw new McpError(
        JsonRpcErrorCode.invalidParams,
        'Invalid params: inputResponses must be an object of results (each an object)',
      )
    if ('requestState' in params) return this.resume(client, id, name, params)
    const running = this.calls.get(client) ?? new Map<RpcId, RunningCall['cancel']>()
    if (running.has(id))
      throw new McpError(
        JsonRpcErrorCode.invalidRequest,
        'Invalid Request: a call with this id is running already',
      )
    const { progressToken, logLevel } = facts
    let stream: EventSink | undefined
    const send = (event: string) => stream?.write(event)
    // A trusted client whose request can show a form is asked the approval as `input_required`.
    const question =
      this.deps.approvalsInClient?.(client) === true && isObject(facts.clientCapabilities.elicitation)
        ? statelessQuestion()
        : undefined
    const call = this.deps.run({
      name,
      input,
      client,
      session: '',
      send,
      ...(progressToken === undefined ? {} : { progressToken }),
      // The call's own log messages go on its own stream, from the level its request asked for.
      ...(logLevel === undefined ? {} : { logTo: { least: () => logLevel, send } }),
      ...(question ? { approval: question } : {}),
    })
    running.set(id, call.cancel)
    this.calls.set(client, running)
    const done = () => {
      running.delete(id)
      if (running.size === 0) this.calls.delete(client)
    }
    const answer = question
      ? this.resultOrApproval(client, id, name, call, question).then((json) => {
          done()
          return json
        })
      : call.result.then((result) => {
          done()
          return resultJson(id, resultText(result))
        })
    if (progressToken === undefined && logLevel === undefined)
      return answer.then((json) => jsonTextResponse(json))
    return {
      status: 200,
      headers: EVENT_STREAM_HEADERS,
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

  /**
   * Whichever comes first: the call's result, or its approval opening (then an `input_required` result,
   * and the call waits in the daemon for the client's retry or the side panel).
   */
  private resultOrApproval(
    client: string,
    id: RpcId,
    tool: string,
    call: RunningCall,
    question: StatelessQuestion,
  ): Promise<string> {
    return new Promise<string>((resolve) => {
      let answered = false
      question.onOpen = (request) => {
        if (answered) return
        answered = true
        const requestState = this.states.issue({ call: call.id, client, tool })
        this.waiting.set(call.id, { call, question })
        // Kept a while after the call ends, for a retry that comes late; then forgotten.
        void call.result.then(() => {
          setTimeout(() => this.waiting.delete(call.id), WAITING_KEPT_MS).unref()
        })
        resolve(inputRequired(id, request, requestState))
      }
      void call.result.then((result) => {
        question.onOpen = undefined
        if (answered) return
        answered = true
        resolve(resultJson(id, resultText(result)))
      })
    })
  }

  /** The retry of a call that got `input_required`: the client's answer, then the call's result. */
  private async resume(
    client: string,
    id: RpcId,
    tool: string,
    params: Record<string, unknown>,
  ): Promise<HttpReply> {
    const state = this.states.read(params.requestState)
    if (!state || state.client !== client || state.tool !== tool)
      throw new McpError(
        JsonRpcErrorCode.invalidParams,
        'Invalid params: requestState was not issued by this server for this client and tool',
      )
    const waiting = this.waiting.get(state.call)
    if (!waiting)
      throw new McpError(
        JsonRpcErrorCode.invalidParams,
        'Invalid params: the call this requestState names is no longer waiting (it ended or expired); call the tool again',
      )
    const responses = isObject(params.inputResponses) ? params.inputResponses : {}
    const decision = decisionOf(responses[APPROVAL_INPUT])
    // Checked when the answer arrives: a client whose approvals were turned off since it was asked
    // decides nothing and is not asked again; its call waits for the user in the side panel.
    const inClient = this.deps.approvalsInClient?.(client) === true
    if (inClient && decision) waiting.question.answer(decision)
    else if (inClient) {
      // No answer (or "cancel"): ask again while the approval is open; the side panel may still decide.
      const open = waiting.question.request
      if (open) return jsonTextResponse(inputRequired(id, open, this.states.issue(state)))
    }
    const running = this.calls.get(client) ?? new Map<RpcId, RunningCall['cancel']>()
    running.set(id, waiting.call.cancel)
    this.calls.set(client, running)
    const result = await waiting.call.result
    running.delete(id)
    if (running.size === 0) this.calls.delete(client)
    this.waiting.delete(state.call)
    return jsonTextResponse(resultJson(id, resultText(result)))
  }
}
