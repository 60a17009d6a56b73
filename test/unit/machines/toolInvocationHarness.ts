import { createActor, fromCallback, fromPromise, SimulatedClock } from 'xstate'
import {
  toolInvocationMachine,
  type PermissionCheck,
  type StepResult,
  type ToolInvocationEvent,
  type ToolInvocationInput,
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
  prepare?: StepResult
  hasProgressToken?: boolean
  /** Hold the steps until the test resolves them (model-based tests). */
  manualSteps?: boolean
}

/** A toolInvocation actor with recording fakes for every effect and a simulated clock. */
export function startInvocation(options: HarnessOptions = {}) {
  const effects: string[] = []
  const outcomes: (ToolOutcome | undefined)[] = []
  const progress: unknown[] = []
  const steps = {
    validate: deferred<StepResult>(),
    checkPermission: deferred<PermissionCheck>(),
    prepareDispatch: deferred<StepResult>(),
  }
  if (!options.manualSteps) {
    steps.validate.resolve(options.validate ?? { ok: true })
    steps.checkPermission.resolve(options.permission ?? { permission: 'auto', extensionConnected: true })
    steps.prepareDispatch.resolve(options.prepare ?? { ok: true })
  }
  let sendBack: ((event: ToolInvocationEvent) => void) | undefined
  const record = (name: string) => () => void effects.push(name)
  const machine = toolInvocationMachine.provide({
    actors: {
      validate: fromPromise(() => steps.validate.promise),
      checkPermission: fromPromise(() => steps.checkPermission.promise),
      prepareDispatch: fromPromise(() => steps.prepareDispatch.promise),
      dispatch: fromCallback<ToolInvocationEvent, ToolInvocationInput>(({ sendBack: back }) => {
        effects.push('dispatch')
        sendBack = back
        return () => {
          effects.push('forgetDispatch')
          sendBack = undefined
        }
      }),
    },
    actions: {
      requestApproval: record('requestApproval'),
      cancelApproval: (_, params) => void effects.push(`cancelApproval:${params.reason}`),
      reportWaitingForApproval: record('reportWaitingForApproval'),
      persistAlways: record('persistAlways'),
      announceStart: record('announceStart'),
      forwardProgress: (_, params) => void progress.push(params),
      releaseSlot: record('releaseSlot'),
      announceEnd: record('announceEnd'),
      recordOutcome: ({ context }) => {
        effects.push('recordOutcome')
        outcomes.push(context.outcome)
      },
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
      hasProgressToken: options.hasProgressToken ?? false,
    },
  })
  actor.start()
  return {
    actor,
    clock,
    effects,
    outcomes,
    progress,
    steps,
    /** Events the running dispatch actor would send (the extension's answer). */
    answer: (event: ToolInvocationEvent) => sendBack?.(event),
    state: () => actor.getSnapshot().value,
  }
}
