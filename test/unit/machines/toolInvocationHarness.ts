import { createActor, fromCallback, fromPromise, SimulatedClock } from 'xstate'
import {
  toolInvocationMachine,
  type ApprovalCheck,
  type PermissionCheck,
  type StepResult,
  type ToolInvocationContext,
  type ToolInvocationEvent,
  type ToolOutcome,
} from '../../../machines/toolInvocationMachine'

export interface Deferred<T> {
  promise: Promise<T>
  resolve: (value: T) => void
}
export function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void
  const promise = new Promise<T>((r) => (resolve = r))
  return { promise, resolve }
}

export const flush = () => new Promise((r) => setTimeout(r, 0))

export interface HarnessOptions {
  validate?: StepResult
  permission?: PermissionCheck
  /** The daemon's answer before an approval (tab, queue room); resolved at once even with manualSteps. */
  approval?: ApprovalCheck
  /** Hold that answer until the test resolves `steps.approval`. */
  holdApproval?: boolean
  /** The pluginTab's answer to the slot request: ok grants it, a failure refuses it. */
  slot?: StepResult
  hasProgressToken?: boolean
  /** Hold the steps until the test resolves them (model-based tests). */
  manualSteps?: boolean
}

/** A toolInvocation actor with recording fakes for every effect and a simulated clock. */
export function startInvocation(options: HarnessOptions = {}) {
  const effects: string[] = []
  const outcomes: (ToolOutcome | undefined)[] = []
  const progress: unknown[] = []
  /** The state the call was in each time it gave its approval-queue place back. */
  const releases: string[] = []
  const steps = {
    validate: deferred<StepResult>(),
    checkPermission: deferred<PermissionCheck>(),
    slot: deferred<StepResult>(),
    approval: deferred<ApprovalCheck>(),
  }
  if (!options.holdApproval) steps.approval.resolve(options.approval ?? { ok: true })
  if (!options.manualSteps) {
    steps.validate.resolve(options.validate ?? { ok: true })
    steps.checkPermission.resolve(options.permission ?? { permission: 'auto', extensionConnected: true })
    steps.slot.resolve(options.slot ?? { ok: true })
  }
  let sendBack: ((event: ToolInvocationEvent) => void) | undefined
  const record = (name: string) => () => void effects.push(name)
  const machine = toolInvocationMachine.provide({
    actors: {
      validate: fromPromise(() => steps.validate.promise),
      checkPermission: fromPromise(() => steps.checkPermission.promise),
      prepareApproval: fromPromise(() => steps.approval.promise),
      dispatch: fromCallback<ToolInvocationEvent, ToolInvocationContext>(({ sendBack: back }) => {
        effects.push('dispatch')
        sendBack = back
        return () => {
          effects.push('forgetDispatch')
          sendBack = undefined
        }
      }),
      record: fromPromise<void, ToolInvocationContext>(({ input }) => {
        effects.push('recordOutcome')
        outcomes.push(input.outcome)
        return Promise.resolve()
      }),
    },
    actions: {
      requestApproval: record('requestApproval'),
      releaseApproval: ({ self }) => void releases.push(JSON.stringify(self.getSnapshot().value)),
      cancelApproval: (_, params) => void effects.push(`cancelApproval:${params.reason}`),
      persistAlways: record('persistAlways'),
      announceStart: record('announceStart'),
      announceEnd: record('announceEnd'),
      // The plugin's pluginTab actor, played by the test: it answers when `steps.slot` settles.
      requestSlot: ({ self }) =>
        void steps.slot.promise.then((answer) =>
          self.send(answer.ok ? { type: 'slot.granted' } : { type: 'slot.refused', error: answer.error }),
        ),
      releaseSlot: record('releaseSlot'),
    },
  })
  const clock = new SimulatedClock()
  const actor = createActor(machine, {
    clock,
    input: {
      invocationId: 'call-1',
      plugin: 'notes',
      tool: 'notes_list_notes',
      input: { limit: 3 },
      client: 'claude',
      session: 'session-1',
      hasProgressToken: options.hasProgressToken ?? false,
      startedAt: 0,
    },
  })
  actor.on('tool.progress', (event) => {
    const { type: _type, ...update } = event
    if (update.message === 'waiting for approval') effects.push('reportWaitingForApproval')
    else progress.push(update)
  })
  actor.start()
  return {
    actor,
    clock,
    effects,
    outcomes,
    progress,
    releases,
    steps,
    /** Events the running dispatch actor would send (the extension's answer). */
    answer: (event: ToolInvocationEvent) => sendBack?.(event),
    state: () => actor.getSnapshot().value,
  }
}
