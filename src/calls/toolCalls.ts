/**
 * Starts one tool call as a `toolInvocation:<uuid>` child of the root system and awaits its outcome
 * (the actor's output, through XState's `toPromise`). The call's data goes in as the actor's input;
 * progress comes back as the actor's emitted `tool.progress` events; cancellation comes in as an
 * `AbortSignal` (the client's notifications/cancelled, or its session closing) and reaches the
 * actor as a `cancel` event.
 */
import { randomUUID } from 'node:crypto'
import { toPromise, type ActorRefFrom } from 'xstate'
import { spawnToolInvocation, type bridgeSystemMachine } from '../../machines/bridgeSystemMachine'
import { pluginTabOf } from '../../machines/systemActors'
import type { ToolInvocationInput, ToolOutcome } from '../../machines/toolInvocationMachine'
import type { AuditEntry } from '../audit'
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

export interface ToolCallRequest {
  name: string
  input: unknown
  /** The MCP client's name (from its credential) and its session id. */
  client: string
  session: string
  /** Present when the MCP request carried `_meta.progressToken`. */
  onProgress?: (update: ProgressUpdate) => void
  /** Aborting it cancels the call (a no-op once it has ended); its reason is the cancel's reason. */
  signal?: AbortSignal
  /** The call's id (also its approval's id and the `dispatchId`), when the caller needs to know it; a fresh UUID. */
  id?: string
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
  const input: ToolInvocationInput = {
    invocationId: request.id ?? randomUUID(),
    plugin: deps.catalog.pluginOf(request.name),
    tool: request.name,
    input: request.input,
    client: request.client,
    session: request.session,
    hasProgressToken: request.onProgress !== undefined,
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
  const { onProgress, signal } = request
  const progress = onProgress
    ? actor.on('tool.progress', ({ progress, total, message }) =>
        onProgress({
          progress,
          ...(total === undefined ? {} : { total }),
          ...(message === undefined ? {} : { message }),
        }),
      )
    : undefined
  const cancel = () => signal && actor.send({ type: 'cancel', reason: reasonOf(signal) })
  if (signal?.aborted) cancel()
  else signal?.addEventListener('abort', cancel, { once: true })
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
    signal?.removeEventListener('abort', cancel)
  }
}

/** Whether a snapshot is (or, for one that failed, last was) in `running`, holding a slot. */
const wasRunning = (snapshot: object): boolean =>
  'value' in snapshot &&
  (snapshot.value === 'running' ||
    (typeof snapshot.value === 'object' && snapshot.value !== null && 'running' in snapshot.value))
