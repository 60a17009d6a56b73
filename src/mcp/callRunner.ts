/**
 * The one `tools/call` runner of `/mcp`, for both revisions, bound to the daemon's call path: the
 * revision's handler reads the request (how it arrived, what it asked for) and hands over the tool, its
 * arguments and the request's channels; the runner builds the call's `RequestContext`, runs the call
 * as a child of the root actor (src/calls), lets the step after the result see it (workflows), marks a
 * site's answer as page content (src/sites/siteResult.ts) and shapes the outcome as an MCP result. A
 * revision differs in how it delivers what the call says back (a session's stream, the request's own
 * stream) and how it shapes the answer, never in what a call is.
 *
 * Below the runner, what `/mcp` reads and writes, for the endpoint, both revisions and the runner
 * alike: an incoming JSON-RPC message sorted into request, notification or answer; the params of the
 * methods bridge serves, checked; answers and notifications serialized once, as JSON bodies or as
 * event-stream events; a request refused before any method runs (a status with a JSON-RPC error
 * body). Nothing here trusts the client's shapes.
 */
import { randomUUID } from 'node:crypto'
import type { CallToolResult, LoggingLevel } from '@modelcontextprotocol/sdk/types.js'
import type { ActorRefFrom } from 'xstate'
import type { bridgeSystemMachine } from '../../machines/bridgeSystemMachine'
import type { ToolOutcome } from '../../machines/toolInvocationMachine'
import type { AuditLog } from '../audit'
import {
  callTool,
  type ApprovalChannel,
  type CallLogEntry,
  type ProgressUpdate,
  type RequestContext,
  type ToolCallRequest,
} from '../calls/toolCalls'
import { pageTextOf } from '../catalog/pageText'
import type { ToolCatalog } from '../catalog/toolCatalog'
import type { HttpRequest } from '../http/engine'
import { jsonTextResponse } from '../http/responses'
import { JsonRpcErrorCode } from '../protocol/errors'
import { markSiteOutcome } from '../sites/siteResult'
import { browserToolNarrowing } from '../tools'
import { toCallToolResult } from './toolResults'

/** A call as the MCP layer holds it: its id (its approval's), its MCP result, and how to cancel it. */
export interface RunningCall {
  id: string
  result: Promise<CallToolResult>
  cancel: (reason: string) => void
}

/** What a revision's `tools/call` handler gives the runner: the call and the request's channels. */
export interface McpCall {
  name: string
  input: unknown
  client: string
  /** The session id; empty for a request without one. */
  session: string
  /** Where the events of this call's own stream go (its progress, an approval asked in the client). */
  send: (event: string) => void
  /** The request's progress token: progress is reported only with one. */
  progressToken?: RpcId
  /** Where the call's log messages go, from the lowest level the client asked for; none without it. */
  logTo?: { least(): LoggingLevel | undefined; send(event: string): void }
  /** For a client trusted to show approvals that can show forms: how its approval is asked there too. */
  approval?: ApprovalChannel
}

export interface CallRunnerDeps {
  /** The started root actor: each call is its child. */
  root: ActorRefFrom<typeof bridgeSystemMachine>
  /** The tool index (the call's tool, its page-text rule, its output schema) and the audit log. */
  catalog: ToolCatalog
  audit: AuditLog
  /** A result's text past this many bytes is cut, with a hint on how to ask for less. */
  resultMaxBytes: number
  /**
   * The step after the result: sees every call's outcome once it is audited, with the request and its
   * context (src/workflows: recording, replay results), and may give the client a different result.
   */
  afterCall?(request: ToolCallRequest, outcome: ToolOutcome): ToolOutcome
  /** Hears each call's result as the client gets it (the data-flow guard remembers what was handed out). */
  handedOut?(id: string, result: CallToolResult): void
  /** Hears that a call started; the function it returns, that it ended (the guard's worker gives way meanwhile). */
  callStarted?(): () => void
}

export type CallRunner = (call: McpCall) => RunningCall

/** The request's channels as the call's context: progress and log messages, as MCP notifications. */
function contextOf(call: McpCall, id: string, signal: AbortSignal): RequestContext {
  const { progressToken, logTo, send, approval } = call
  return {
    id,
    client: call.client,
    session: call.session,
    signal,
    ...(approval === undefined ? {} : { approval }),
    ...(progressToken === undefined
      ? {}
      : {
          progress: (update: ProgressUpdate) =>
            send(sseEvent(notificationJson('notifications/progress', { progressToken, ...update }))),
        }),
    ...(logTo === undefined
      ? {}
      : {
          log: (entry: CallLogEntry) => {
            const least = logTo.least()
            if (least === undefined || LOGGING_LEVELS.indexOf(entry.level) < LOGGING_LEVELS.indexOf(least))
              return
            logTo.send(sseEvent(notificationJson('notifications/message', { ...entry })))
          },
        }),
  }
}

export function createCallRunner(deps: CallRunnerDeps): CallRunner {
  const { root, catalog, audit } = deps
  /** The call to its audited outcome, then the step after it; a site's answer is marked as page content. */
  const run = async (request: ToolCallRequest): Promise<ToolOutcome> => {
    const site = catalog.get(request.name)?.site
    const ran = await callTool({ system: root, catalog, audit }, request)
    const outcome = deps.afterCall ? deps.afterCall(request, ran) : ran
    return site ? markSiteOutcome(site, outcome) : outcome
  }
  return (call) => {
    const id = randomUUID()
    const ended = deps.callStarted?.()
    const controller = new AbortController()
    const structured = catalog.get(call.name)?.outputSchema !== undefined
    const result = run({
      name: call.name,
      input: call.input,
      context: contextOf(call, id, controller.signal),
    }).then((outcome) => {
      const shaped = toCallToolResult(
        outcome,
        deps.resultMaxBytes,
        browserToolNarrowing(call.name),
        structured,
        pageTextOf(catalog, call.name),
      )
      deps.handedOut?.(id, shaped)
      return shaped
    })
    if (ended) void result.then(ended, ended)
    return { id, result, cancel: (reason) => controller.abort(reason) }
  }
}

// What /mcp reads and writes.

export type RpcId = string | number

export type McpMessage =
  | { kind: 'request'; id: RpcId; method: string; params: Record<string, unknown> }
  | { kind: 'notification'; method: string; params: Record<string, unknown> }
  /** An answer to a request of ours (an approval asked through the client), or one to ignore. */
  | { kind: 'answer'; id?: RpcId; result?: unknown; failed?: boolean }
  | { kind: 'invalid'; message: string }

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

const isId = (value: unknown): value is RpcId =>
  typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value))

/** Sorts one parsed body. Batches are refused (MCP dropped them in 2025-06-18; no client sends them). */
export function readMessage(body: unknown): McpMessage {
  if (Array.isArray(body)) return { kind: 'invalid', message: 'Invalid Request: batches are not supported' }
  if (!isObject(body) || body.jsonrpc !== '2.0')
    return { kind: 'invalid', message: 'Invalid Request: expected a JSON-RPC 2.0 object' }
  if (!('method' in body)) {
    if ('result' in body || 'error' in body)
      return {
        kind: 'answer',
        ...(isId(body.id) ? { id: body.id } : {}),
        ...('result' in body ? { result: body.result } : { failed: true }),
      }
    return { kind: 'invalid', message: 'Invalid Request: no method, result or error' }
  }
  if (typeof body.method !== 'string')
    return { kind: 'invalid', message: 'Invalid Request: method must be a string' }
  if (body.params !== undefined && !isObject(body.params))
    return { kind: 'invalid', message: 'Invalid Request: params must be an object' }
  const params = body.params ?? {}
  if (!('id' in body)) return { kind: 'notification', method: body.method, params }
  if (!isId(body.id)) return { kind: 'invalid', message: 'Invalid Request: id must be a string or a number' }
  return { kind: 'request', id: body.id, method: body.method, params }
}

/** An error the client caused, answered as a JSON-RPC error. */
export class McpError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message)
  }
}

const invalidParams = (message: string) =>
  new McpError(JsonRpcErrorCode.invalidParams, `Invalid params: ${message}`)

export interface InitializeParams {
  protocolVersion: string
  /** The client can show a form (MCP elicitation, form mode) in this session. */
  elicitsForms: boolean
}

export function initializeParams(params: Record<string, unknown>): InitializeParams {
  if (typeof params.protocolVersion !== 'string') throw invalidParams('protocolVersion must be a string')
  if (!isObject(params.capabilities)) throw invalidParams('capabilities must be an object')
  const info = params.clientInfo
  if (!isObject(info) || typeof info.name !== 'string' || typeof info.version !== 'string')
    throw invalidParams('clientInfo must have a name and a version')
  const elicitation = params.capabilities.elicitation
  // An empty elicitation capability means form mode (2025-06-18); 2025-11-25 may name the modes.
  const elicitsForms =
    isObject(elicitation) && (Object.keys(elicitation).length === 0 || isObject(elicitation.form))
  return { protocolVersion: params.protocolVersion, elicitsForms }
}

/** A request of ours, serialized. */
export const requestJson = (id: RpcId, method: string, params: Record<string, unknown>): string =>
  JSON.stringify({ jsonrpc: '2.0', id, method, params })

export interface CallParams {
  name: string
  arguments: Record<string, unknown>
  progressToken?: RpcId
}

export function callParams(params: Record<string, unknown>): CallParams {
  if (typeof params.name !== 'string') throw invalidParams('name must be a string')
  const args = params.arguments ?? {}
  if (!isObject(args)) throw invalidParams('arguments must be an object')
  const token = isObject(params._meta) ? params._meta.progressToken : undefined
  if (token !== undefined && !isId(token))
    throw invalidParams('_meta.progressToken must be a string or a number')
  return { name: params.name, arguments: args, ...(token === undefined ? {} : { progressToken: token }) }
}

/** RFC 5424 severities, least severe first, as MCP names them. */
export const LOGGING_LEVELS: readonly LoggingLevel[] = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
]

export function loggingLevel(params: Record<string, unknown>): LoggingLevel {
  const level = params.level
  if (typeof level !== 'string' || !(LOGGING_LEVELS as readonly string[]).includes(level))
    throw invalidParams(`level must be one of ${LOGGING_LEVELS.join(', ')}`)
  return level as LoggingLevel
}

/** `{"jsonrpc":"2.0","id":…,"result":…}` with a result serialized already. */
export const resultJson = (id: RpcId, resultText: string): string =>
  `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${resultText}}`

export const errorJson = (id: RpcId | null, code: number, message: string): string =>
  JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } })

export const notificationJson = (method: string, params: Record<string, unknown>): string =>
  JSON.stringify({ jsonrpc: '2.0', method, params })

/** One event of an MCP event stream. */
export const sseEvent = (json: string): string => `event: message\ndata: ${json}\n\n`

/** Whether the request's Accept header takes this content type. */
export const accepts = (request: HttpRequest, type: string) => (request.header('accept') ?? '').includes(type)

/** An HTTP-level refusal with a JSON-RPC error body, as MCP clients expect them. */
export const refusal = (
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
) => jsonTextResponse(errorJson(null, code, message), status, headers)

/** A request of the session revision without its session's id. */
export const sessionRequired = (id: RpcId | null = null) =>
  jsonTextResponse(errorJson(id, -32000, 'Bad Request: Mcp-Session-Id header is required'), 400)
