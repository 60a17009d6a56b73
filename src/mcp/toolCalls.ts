/**
 * Starts one MCP tool call as a `toolInvocation:<uuid>` child of the root system and waits for its
 * outcome (the actor's output). The call's data goes in as the actor's input; progress comes back as
 * the actor's emitted `tool.progress` events; a client's cancel (or its session closing) goes in as a
 * `cancel` event through the handle's `cancel`.
 */
import { randomUUID } from 'node:crypto'
import type { ActorRefFrom, AnyActorRef } from 'xstate'
import { systemIdOf, type bridgeSystemMachine } from '../../machines/bridgeSystemMachine'
import type {
  ToolInvocationInput,
  ToolOutcome,
  toolInvocationMachine,
} from '../../machines/toolInvocationMachine'
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
}

/** A running call: its id, its outcome, and the way to cancel it (a no-op once it has ended). */
export interface ToolCall {
  /** The invocation id (also the approval id and the `dispatchId` on the wire). */
  id: string
  outcome: Promise<ToolOutcome>
  cancel: (reason: string) => void
}

export interface ToolCallsDeps {
  system: ActorRefFrom<typeof bridgeSystemMachine>
  catalog: ToolCatalog
  /** Only for a call that fails inside the daemon before its actor could write its entry. */
  audit: { record(entry: AuditEntry): Promise<void> }
}

type InvocationRef = ActorRefFrom<typeof toolInvocationMachine>

const internalFailure: ToolOutcome = {
  ok: false,
  error: { code: 'tool_error', message: 'the call failed inside the daemon', category: 'internal' },
}

/** Runs one call; its outcome resolves exactly once, after its audit entry is on disk, and never rejects. */
export function callTool(deps: ToolCallsDeps, request: ToolCallRequest): ToolCall {
  const input: ToolInvocationInput = {
    invocationId: randomUUID(),
    plugin: deps.catalog.pluginOf(request.name),
    tool: request.name,
    input: request.input,
    client: request.client,
    session: request.session,
    hasProgressToken: request.onProgress !== undefined,
    startedAt: Date.now(),
  }
  const name = neutralizeText(request.name, 128)
  deps.system.send({ type: 'toolInvocation.spawn', input })
  const actor = deps.system.system.get(systemIdOf('toolInvocation', input.invocationId)) as
    InvocationRef | undefined
  if (!actor) {
    logger.error(`call of ${name} could not start inside the daemon`)
    return {
      id: input.invocationId,
      outcome: deps.audit.record(auditEntryOf(input, internalFailure)).then(() => internalFailure),
      cancel: () => undefined,
    }
  }

  let settled = false
  const outcome = new Promise<ToolOutcome>((resolve) => {
    const progress = request.onProgress
      ? actor.on('tool.progress', ({ progress, total, message }) =>
          request.onProgress?.({
            progress,
            ...(total === undefined ? {} : { total }),
            ...(message === undefined ? {} : { message }),
          }),
        )
      : undefined
    const settle = (result: ToolOutcome) => {
      if (settled) return
      settled = true
      subscription.unsubscribe()
      progress?.unsubscribe()
      resolve(result)
    }
    // A bug in an effect must not leave the client waiting: answer with an internal tool_error.
    const failed = (error: unknown) => {
      logger.error(`call of ${name} failed inside the daemon:`, error)
      // Its exit actions did not run: give back the slot it held.
      if (actor.getSnapshot().matches('running'))
        (deps.system.system.get(systemIdOf('pluginTab', input.plugin)) as AnyActorRef | undefined)?.send({
          type: 'slot.release',
        })
      void deps.audit.record(auditEntryOf(input, internalFailure)).then(() => settle(internalFailure))
    }
    const subscription = actor.subscribe({
      complete: () => settle(actor.getSnapshot().output ?? internalFailure),
      error: failed,
    })
  })
  return {
    id: input.invocationId,
    outcome,
    cancel: (reason) => {
      if (!settled) actor.send({ type: 'cancel', reason })
    },
  }
}

/** The calls running now: the root's toolInvocation children. */
export function runningCalls(system: ActorRefFrom<typeof bridgeSystemMachine>): AnyActorRef[] {
  return Object.entries(system.getSnapshot().children as Record<string, AnyActorRef | undefined>).flatMap(
    ([id, ref]) => (ref && id.startsWith('toolInvocation') ? [ref] : []),
  )
}

/** Resolves once no call is running, or after `withinMs`. */
export async function callsSettled(
  system: ActorRefFrom<typeof bridgeSystemMachine>,
  withinMs: number,
): Promise<void> {
  const deadline = Date.now() + withinMs
  while (runningCalls(system).length > 0 && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 20))
}
