import { assign, createActor, fromPromise, SimulatedClock } from 'xstate'
import {
  toolInvocationMachine,
  type CheckVerdict,
  type PreparedInput,
  type StepResult,
  type ToolInvocationContext,
  type ToolFailure,
  type ToolOutcome,
} from '../../../machines/toolInvocationMachine'
import type { ApprovalTab, Permission } from '../../../src/protocol'

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

export interface PermissionCheck {
  permission: Permission
  extensionConnected: boolean
}

/** The daemon's answer before an approval: the pluginTab's tab (or its refusal), then queue room. */
export type ApprovalCheck = { ok: true; tab?: ApprovalTab } | { ok: false; error: ToolFailure }

export interface HarnessOptions {
  validate?: StepResult
  permission?: PermissionCheck
  /** The tool has a daemon-side step on its input; it answers `steps.prepare`. */
  prepare?: boolean
  approval?: ApprovalCheck
  /** Hold that answer until the test resolves `steps.approval`. */
  holdApproval?: boolean
  /** The pluginTab's answer to the slot request: ok grants it, a failure refuses it. */
  slot?: StepResult
  hasProgressToken?: boolean
  /** Model-based tests: start only on `begin(verdict)` and hold the slot until the test resolves it. */
  manualSteps?: boolean
}

const verdictOf = (validate: StepResult, permission: PermissionCheck, prepare: boolean): CheckVerdict =>
  validate.ok ? { ok: true, ...permission, prepare } : validate

/** A toolInvocation actor with recording fakes for every effect and a simulated clock. */
export function startInvocation(options: HarnessOptions = {}) {
  const effects: string[] = []
  const outcomes: (ToolOutcome | undefined)[] = []
  const progress: unknown[] = []
  /** The log entries the call passed on to its client. */
  const logs: unknown[] = []
  /** The state the call was in each time it gave its approval-queue place back. */
  const releases: string[] = []
  /** What the call told its own client of its approval (opened, closed). */
  const approvals: string[] = []
  const steps = {
    prepare: deferred<PreparedInput>(),
    slot: deferred<StepResult>(),
    approval: deferred<ApprovalCheck>(),
  }
  if (!options.holdApproval) steps.approval.resolve(options.approval ?? { ok: true })
  if (!options.manualSteps) steps.slot.resolve(options.slot ?? { ok: true })
  let verdict = verdictOf(
    options.validate ?? { ok: true },
    options.permission ?? { permission: 'auto', extensionConnected: true },
    options.prepare ?? false,
  )
  /** The running dispatch's answer, while the call waits for it. */
  let answerDispatch: ((outcome: ToolOutcome) => void) | undefined
  const record = (name: string) => () => void effects.push(name)
  const isTabRefusal = (check: ApprovalCheck) => !check.ok && check.error.code.startsWith('tab_')
  const machine = toolInvocationMachine.provide({
    actors: {
      prepareInput: fromPromise(() => steps.prepare.promise),
      // The extension, played by the test: `answer` settles the dispatch; a stopped one is aborted.
      dispatch: fromPromise<ToolOutcome, ToolInvocationContext>(({ signal }) => {
        effects.push('dispatch')
        signal.addEventListener('abort', () => effects.push('dispatchAborted'))
        return new Promise<ToolOutcome>((resolve) => (answerDispatch = resolve))
      }),
      reserveApproval: fromPromise(() =>
        steps.approval.promise.then((check): StepResult => (check.ok ? { ok: true } : check)),
      ),
    },
    actions: {
      record: ({ context }) => {
        effects.push('recordOutcome')
        outcomes.push(context.outcome)
      },
      check: assign({ verdict: () => verdict }),
      requestApproval: record('requestApproval'),
      releaseApproval: ({ self }) => void releases.push(JSON.stringify(self.getSnapshot().value)),
      cancelApproval: (_, params) => void effects.push(`cancelApproval:${params.reason}`),
      persistAlways: record('persistAlways'),
      announceStart: record('announceStart'),
      announceEnd: record('announceEnd'),
      // The plugin's pluginTab actor, played by the test: it names the tab when `steps.approval` settles.
      requestTab: ({ self }) =>
        void steps.approval.promise.then((check) =>
          self.send(
            !check.ok && isTabRefusal(check)
              ? { type: 'tab.refused', error: check.error }
              : { type: 'tab.chosen', ...(check.ok && check.tab ? { tab: check.tab } : {}) },
          ),
        ),
      // ... and it answers the slot request when `steps.slot` settles.
      requestSlot: ({ self }) =>
        void steps.slot.promise.then((answer) =>
          self.send(answer.ok ? { type: 'slot.granted' } : { type: 'slot.refused', error: answer.error }),
        ),
      releaseSlot: record('releaseSlot'),
    },
  })
  const clock = new SimulatedClock()
  // The check is an `assign` on entry: XState applies it when the actor is created, so a
  // `manualSteps` call is created only once its verdict is known.
  const create = () => {
    const created = createActor(machine, {
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
    created.on('tool.progress', (event) => {
      const { type: _type, ...update } = event
      if (update.message === 'waiting for approval') effects.push('reportWaitingForApproval')
      else progress.push(update)
    })
    created.on('tool.log', ({ type: _type, ...entry }) => void logs.push(entry))
    created.on('approval.opened', ({ request }) => void approvals.push(`opened:${request.id}`))
    created.on('approval.closed', () => void approvals.push('closed'))
    return created.start()
  }
  let actor: ReturnType<typeof create> | undefined = options.manualSteps ? undefined : create()
  const started = () => {
    if (!actor) throw new Error('the call has not begun')
    return actor
  }
  return {
    get actor() {
      return started()
    },
    clock,
    effects,
    outcomes,
    progress,
    logs,
    releases,
    approvals,
    steps,
    /** Starts a `manualSteps` call with the verdict of its synchronous check. */
    begin: (validate: StepResult, permission: PermissionCheck) => {
      verdict = verdictOf(validate, permission, options.prepare ?? false)
      actor = create()
    },
    /** The extension's answer to the running dispatch, then a turn for the call to take it. */
    answer: async (outcome: ToolOutcome) => {
      answerDispatch?.(outcome)
      await flush()
    },
    state: () => started().getSnapshot().value,
  }
}
