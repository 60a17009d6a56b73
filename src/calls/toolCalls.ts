/**
 * Starts one tool call as a `toolInvocation:<uuid>` child of the root system and awaits its outcome
 * (the actor's output, through XState's `toPromise`). What it receives is the tool, its arguments and
 * the request's context (`RequestContext`): the call's data goes in as the actor's input; progress
 * comes back as the actor's emitted `tool.progress` events to `context.progress`, the plugin's log
 * entries of the call as its `tool.log` events to `context.log`; cancellation comes in
 * as `context.signal` (the client's notifications/cancelled, or its session closing) and reaches the
 * actor as a `cancel` event.
 */
import { toPromise, type ActorRefFrom } from 'xstate'
import { spawnToolInvocation, type bridgeSystemMachine } from '../../machines/bridgeSystemMachine'
import { pluginTabOf } from '../../machines/systemActors'
import type { ToolInvocationInput, ToolLogEntry, ToolOutcome } from '../../machines/toolInvocationMachine'
import type { AuditEntry } from '../audit'
import type { ApprovalRequest, Decision } from '../protocol'
import type { ToolCatalog } from '../catalog/toolCatalog'
import { log } from '../log'
import { neutralizeText } from '../protocol/untrustedText'
import { auditEntryOf } from './invocationEffects'

const logger = log.withTag('tools')

export interface ProgressUpdate {
  progress: number
  total?: number
  message?: string
}

/** One plugin log entry of a call, as the client will read it (`notifications/message`). */
export type CallLogEntry = ToolLogEntry

/**
 * A call's approval put to its own client too, for a client the user trusts to show approvals: the
 * question goes out when the approval opens and is withdrawn when it closes (answered anywhere,
 * expired, cancelled). The first answer, the client's or the side panel's, decides.
 */
export interface ApprovalChannel {
  /** The approval opened: ask the client; `answer` hands its answer to the call (taken only while open). */
  open(request: ApprovalRequest, answer: (decision: Decision) => void): void
  /** The approval closed, however: a question still out is withdrawn. */
  close(): void
}

/**
 * Everything the request that made a call gives it, whichever MCP revision it came by (src/mcp
 * builds one per `tools/call`): who asks, how to cancel, and the call's own channels back to that
 * client. A step added to the call path reads the call's client and signal here.
 */
export interface RequestContext {
  /** The call's id: also its approval's id and the `dispatchId` on the wire. */
  readonly id: string
  /** The MCP client's name (from its credential) and its session id (empty without a session). */
  readonly client: string
  readonly session: string
  /** Aborting it cancels the call (a no-op once it has ended); its reason is the cancel's reason. */
  readonly signal: AbortSignal
  /** Present when the request carried a progress token. */
  progress?(update: ProgressUpdate): void
  /** Present when the client asked for log messages: the call's own plugin log entries, to this client only. */
  log?(entry: CallLogEntry): void
  /** Present when the client is trusted to show approvals and can show forms: its approval, asked there too. */
  readonly approval?: ApprovalChannel
}

/** One tool call as src/calls receives it: the tool, its arguments, and the request's context. */
export interface ToolCallRequest {
  name: string
  input: unknown
  context: RequestContext
}

export interface ToolCallsDeps {
  system: ActorRefFrom<typeof bridgeSystemMachine>
  catalog: ToolCatalog
  /** Only for a call that fails inside the daemon before its actor could write its entry. */
  audit: { record(entry: AuditEntry): void }
}

/** Runs tool calls; see `callTool`. */
export type CallTool = (request: ToolCallRequest) => Promise<ToolOutcome>

const internalFailure: ToolOutcome = {
  ok: false,
  error: { code: 'tool_error', message: 'the call failed inside the daemon', category: 'internal' },
}

const reasonOf = (signal: AbortSignal): string =>
  typeof signal.reason === 'string' ? signal.reason : 'the client cancelled the call'

/**
 * Runs one call; the promise resolves exactly once, after the call's audit entry is written (in the
 * kernel: see src/audit/auditFile.ts), and never rejects.
 */
export async function callTool(deps: ToolCallsDeps, request: ToolCallRequest): Promise<ToolOutcome> {
  const { context } = request
  const input: ToolInvocationInput = {
    invocationId: context.id,
    plugin: deps.catalog.pluginOf(request.name),
    tool: request.name,
    input: request.input,
    client: context.client,
    session: context.session,
    hasProgressToken: context.progress !== undefined,
    startedAt: Date.now(),
  }
  // For the log lines of a failure only: the name as the client sent it, made safe to print.
  const name = () => neutralizeText(request.name, 128)
  const actor = spawnToolInvocation(deps.system, input)
  if (!actor) {
    logger.error(`call of ${name()} could not start inside the daemon`)
    deps.audit.record(auditEntryOf(input, internalFailure))
    return internalFailure
  }
  const { signal } = context
  const onProgress = context.progress?.bind(context)
  const progress = onProgress
    ? actor.on('tool.progress', ({ progress, total, message }) =>
        onProgress({
          progress,
          ...(total === undefined ? {} : { total }),
          ...(message === undefined ? {} : { message }),
        }),
      )
    : undefined
  // The plugin's log entries of this call, to this call's client only (never to another session).
  const onLog = context.log?.bind(context)
  const logs = onLog
    ? actor.on('tool.log', ({ level, logger, data }) => onLog({ level, logger, data }))
    : undefined
  // Its approval, asked in this call's client too; the client's answer goes to this call only.
  const approval = context.approval
  const asking = approval
    ? [
        actor.on('approval.opened', ({ request }) =>
          approval.open(request, (decision) => actor.send({ type: 'approval.answeredInClient', decision })),
        ),
        actor.on('approval.closed', () => approval.close()),
      ]
    : []
  const cancel = () => actor.send({ type: 'cancel', reason: reasonOf(signal) })
  if (signal.aborted) cancel()
  else signal.addEventListener('abort', cancel, { once: true })
  try {
    return (await toPromise(actor)) ?? internalFailure
  } catch (error) {
    // A bug in an effect must not leave the client waiting: answer with an internal tool_error.
    logger.error(`call of ${name()} failed inside the daemon:`, error)
    // Its exit actions did not run: give back the slot it held.
    if (actor.getSnapshot().status === 'error' && wasRunning(actor.getSnapshot()))
      pluginTabOf(deps.system.system, input.plugin)?.send({ type: 'slot.release' })
    deps.audit.record(auditEntryOf(input, internalFailure))
    return internalFailure
  } finally {
    progress?.unsubscribe()
    logs?.unsubscribe()
    for (const subscription of asking) subscription.unsubscribe()
    signal.removeEventListener('abort', cancel)
  }
}

/** Whether a snapshot is (or, for one that failed, last was) in `running`, holding a slot. */
const wasRunning = (snapshot: object): boolean =>
  'value' in snapshot &&
  (snapshot.value === 'running' ||
    (typeof snapshot.value === 'object' && snapshot.value !== null && 'running' in snapshot.value))
