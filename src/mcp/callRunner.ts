/**
 * The one `tools/call` runner of `/mcp`, for both revisions, bound to the daemon's call path: the
 * revision's handler reads the request (how it arrived, what it asked for) and hands over the tool, its
 * arguments and the request's channels; the runner builds the call's `RequestContext`, runs the call
 * as a child of the root actor (src/calls), lets the step after the result see it (workflows), marks a
 * site's answer as page content (src/sites/siteResult.ts) and shapes the outcome as an MCP result. A
 * revision differs in how it delivers what the call says back (a session's stream, the request's own
 * stream) and how it shapes the answer, never in what a call is.
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
import { markSiteOutcome } from '../sites/siteResult'
import { browserToolNarrowing } from '../tools'
import { LOGGING_LEVELS, notificationJson, sseEvent, type RpcId } from './mcpMessages'
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
    return { id, result, cancel: (reason) => controller.abort(reason) }
  }
}
