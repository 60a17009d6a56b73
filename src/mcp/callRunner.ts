/**
 * The one `tools/call` runner of `/mcp`, for both revisions: the revision's handler reads the request
 * (how it arrived, what it asked for) and hands over the tool, its arguments and the request's
 * channels; the runner builds the call's `RequestContext` (src/calls), runs the call and shapes its
 * outcome as an MCP result. A revision differs in how it delivers what the call says back (a session's
 * stream, the request's own stream) and how it shapes the answer, never in what a call is.
 */
import { randomUUID } from 'node:crypto'
import type { CallToolResult, LoggingLevel } from '@modelcontextprotocol/sdk/types.js'
import type {
  ApprovalChannel,
  CallLogEntry,
  CallTool,
  ProgressUpdate,
  RequestContext,
} from '../calls/toolCalls'
import type { PageTextRule } from '../catalog/pageText'
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
  /** Runs one tool call to its audited outcome (src/calls/toolCalls.ts). */
  callTool: CallTool
  /** A result's text past this many bytes is cut, with a hint on how to ask for less. */
  resultMaxBytes: number
  /** For the result of a call of this tool: which parts a page wrote (src/catalog/pageText.ts). */
  pageText(name: string): PageTextRule
  /** True for a tool with an object output schema: its results carry structuredContent. */
  hasOutputSchema?(name: string): boolean
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
  return (call) => {
    const id = randomUUID()
    const controller = new AbortController()
    const structured = deps.hasOutputSchema?.(call.name) === true
    const result = deps
      .callTool({ name: call.name, input: call.input, context: contextOf(call, id, controller.signal) })
      .then((outcome) => {
        const shaped = toCallToolResult(
          outcome,
          deps.resultMaxBytes,
          browserToolNarrowing(call.name),
          structured,
          deps.pageText(call.name),
        )
        deps.handedOut?.(id, shaped)
        return shaped
      })
    return { id, result, cancel: (reason) => controller.abort(reason) }
  }
}
