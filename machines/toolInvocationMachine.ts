import { pluginTabOf } from './systemActors'
import { assign, emit, fromCallback, fromPromise, setup } from 'xstate'
import {
  APPROVAL_PROGRESS_INTERVAL_MS,
  APPROVAL_TIMEOUT_MS,
  TOOL_MAX_DURATION_MS,
  TOOL_TIMEOUT_MS,
  type Decision,
} from '../src/protocol'
import type {
  ApprovalCheck,
  PermissionCheck,
  StepResult,
  ToolFailure,
  ToolInvocationContext,
  ToolInvocationEmitted,
  ToolInvocationEvent,
  ToolInvocationInput,
  ToolOutcome,
} from './toolInvocationTypes'

export type * from './toolInvocationTypes'

const notProvided = (what: string) => Promise.reject(new Error(`${what} is not provided`))

/** The failures the machine itself decides, with the text the client and the audit log see. */
const FAILURES = {
  internalValidate: { code: 'tool_error', message: 'the call could not be validated', category: 'internal' },
  internalPermission: {
    code: 'tool_error',
    message: 'the permission could not be read',
    category: 'internal',
  },
  internalDispatch: { code: 'tool_error', message: 'the call could not be dispatched', category: 'internal' },
  internalApproval: {
    code: 'tool_error',
    message: 'the approval could not be prepared',
    category: 'internal',
  },
  permissionOff: {
    code: 'permission_off',
    message: 'this tool is off; enable it in the bridge side panel or with `bridge config set`',
    category: 'permission',
  },
  askWithoutExtension: {
    code: 'extension_not_connected',
    message: 'this tool needs approval in the browser, but the bridge extension is not connected',
    category: 'connection',
  },
  approvalDenied: { code: 'approval_denied', message: 'the user denied the call', category: 'permission' },
  approvalTimeout: {
    code: 'approval_timeout',
    message: 'nobody approved the call in time',
    category: 'permission',
  },
  lostDuringApproval: {
    code: 'extension_disconnected',
    message: 'the extension disconnected while the call awaited approval',
    category: 'connection',
  },
  lostDuringCall: {
    code: 'extension_disconnected',
    message: 'the extension disconnected during the call',
    category: 'connection',
  },
  noAnswer: {
    code: 'timeout',
    message: 'the tool did not answer or report progress in time',
    category: 'timeout',
  },
  maxDuration: {
    code: 'timeout',
    message: 'the tool ran past the maximum duration of a call',
    category: 'timeout',
  },
  noExtension: {
    code: 'extension_not_connected',
    message: 'the bridge extension is not connected to the daemon',
    category: 'connection',
  },
  cancelled: { code: 'cancelled', message: 'the client cancelled the call', category: 'connection' },
  shuttingDown: {
    code: 'shutting_down',
    message: 'the daemon is shutting down; call again once it is back',
    category: 'connection',
  },
} satisfies Record<string, ToolFailure>
type FailureReason = keyof typeof FAILURES

const failWith = (reason: FailureReason) => ({ type: 'fail', params: { reason } }) as const

/**
 * One tool call: validating -> checkingPermission -> (preparingApproval -> awaitingApproval) ->
 * dispatching -> running -> recording -> succeeded | failed. The call's data is its input; its outcome is its output, produced
 * only after `record` (the audit entry) has finished; progress is an emitted `tool.progress` event.
 * `dispatching` asks the plugin's `pluginTab:<plugin>` actor for a slot and waits for its answer;
 * leaving `running` gives the slot back. The daemon provides the effects once (catalog, extension
 * port, audit) with `.provide()`; `announceEnd` runs on every way out of `running`.
 */
export const toolInvocationMachine = setup({
  types: {
    context: {} as ToolInvocationContext,
    input: {} as ToolInvocationInput,
    events: {} as ToolInvocationEvent,
    emitted: {} as ToolInvocationEmitted,
    output: {} as ToolOutcome,
  },
  actors: {
    /** Unknown tool or input that does not match the tool's schema. */
    validate: fromPromise<StepResult, ToolInvocationInput>(() => notProvided('validate')),
    checkPermission: fromPromise<PermissionCheck, ToolInvocationInput>(() => notProvided('checkPermission')),
    /**
     * Before the user is asked: a ready tab to run in (named in the approval) and room in the client's
     * approval queue. A call that could not run, or one too many, fails here and nobody is asked.
     */
    prepareApproval: fromPromise<ApprovalCheck, ToolInvocationInput>(() => notProvided('prepareApproval')),
    /**
     * Sends tool.dispatch (in the approved tab, when one was shown) and reports dispatch.succeeded /
     * dispatch.failed; stopping it forgets the request.
     */
    dispatch: fromCallback<ToolInvocationEvent, ToolInvocationContext>(() => undefined),
    /** Writes the audit entry; the call answers once it has settled. */
    record: fromPromise<void, ToolInvocationContext>(() => notProvided('record')),
  },
  actions: {
    requestApproval: () => undefined,
    /** Gives back the call's place in its client's approval queue; every way out of an approval runs it. */
    releaseApproval: () => undefined,
    cancelApproval: (_, _params: { reason: string }) => undefined,
    persistAlways: () => undefined,
    announceStart: () => undefined,
    announceEnd: () => undefined,
    /** Asks the plugin's pluginTab actor for a slot; with no such actor the call is refused as tab_closed. */
    requestSlot: ({ context, system, self }) => {
      const tab = pluginTabOf(system, context.plugin)
      if (tab) tab.send({ type: 'slot.request', replyTo: self })
      else
        self.send({
          type: 'slot.refused',
          error: {
            code: 'tab_closed',
            message: `no open tab matches the ${context.plugin} plugin; open the site first`,
            category: 'tab',
          },
        })
    },
    releaseSlot: ({ context, system }) => pluginTabOf(system, context.plugin)?.send({ type: 'slot.release' }),
    countWaitingTick: assign({ waitingTicks: ({ context }) => context.waitingTicks + 1 }),
    reportWaitingForApproval: emit(({ context }) => ({
      type: 'tool.progress' as const,
      progress: context.waitingTicks,
      message: 'waiting for approval',
    })),
    forwardProgress: emit((_, params: { progress: number; total?: number; message?: string }) => ({
      type: 'tool.progress' as const,
      progress: params.progress,
      ...(params.total === undefined ? {} : { total: params.total }),
      ...(params.message === undefined ? {} : { message: params.message }),
    })),
    fail: assign({
      outcome: (_, params: { reason: FailureReason }): ToolOutcome => ({
        ok: false,
        error: FAILURES[params.reason],
      }),
    }),
    takeFailure: assign({
      outcome: (_, params: { error: ToolFailure }): ToolOutcome => ({ ok: false, error: params.error }),
    }),
  },
  guards: {
    isOk: (_, result: StepResult) => result.ok,
    isOff: (_, check: PermissionCheck) => check.permission === 'off',
    isAskWithoutExtension: (_, check: PermissionCheck) =>
      check.permission === 'ask' && !check.extensionConnected,
    isAsk: (_, check: PermissionCheck) => check.permission === 'ask',
    isWithoutExtension: (_, check: PermissionCheck) => !check.extensionConnected,
    hasProgressToken: ({ context }) => context.hasProgressToken,
    succeeded: ({ context }) => context.outcome?.ok === true,
    isDecision: ({ event }, params: { decision: Decision }) =>
      event.type === 'confirmation.response' && event.decision === params.decision,
  },
  delays: {
    callTimeout: TOOL_TIMEOUT_MS,
    maxDuration: TOOL_MAX_DURATION_MS,
    approvalTimeout: APPROVAL_TIMEOUT_MS,
    approvalProgressInterval: APPROVAL_PROGRESS_INTERVAL_MS,
  },
}).createMachine({
  id: 'toolInvocation',
  context: ({ input }) => ({ ...input, waitingTicks: 0 }),
  initial: 'validating',
  on: {
    cancel: { target: '.recording', actions: failWith('cancelled') },
    'daemon.stopping': { target: '.recording', actions: failWith('shuttingDown') },
    // A slot granted after the call moved on (it was cancelled meanwhile) goes straight back.
    'slot.granted': { actions: 'releaseSlot' },
  },
  states: {
    validating: {
      invoke: {
        id: 'validate',
        src: 'validate',
        input: ({ context }) => context,
        onDone: [
          { guard: { type: 'isOk', params: ({ event }) => event.output }, target: 'checkingPermission' },
          {
            target: 'recording',
            actions: {
              type: 'takeFailure',
              params: ({ event }) => ({ error: (event.output as { error: ToolFailure }).error }),
            },
          },
        ],
        onError: { target: 'recording', actions: failWith('internalValidate') },
      },
    },
    checkingPermission: {
      invoke: {
        id: 'checkPermission',
        src: 'checkPermission',
        input: ({ context }) => context,
        onDone: [
          {
            guard: { type: 'isOff', params: ({ event }) => event.output },
            target: 'recording',
            actions: failWith('permissionOff'),
          },
          {
            guard: { type: 'isAskWithoutExtension', params: ({ event }) => event.output },
            target: 'recording',
            actions: failWith('askWithoutExtension'),
          },
          { guard: { type: 'isAsk', params: ({ event }) => event.output }, target: 'preparingApproval' },
          {
            guard: { type: 'isWithoutExtension', params: ({ event }) => event.output },
            target: 'recording',
            actions: failWith('noExtension'),
          },
          { target: 'dispatching' },
        ],
        onError: { target: 'recording', actions: failWith('internalPermission') },
      },
    },
    preparingApproval: {
      invoke: {
        id: 'prepareApproval',
        src: 'prepareApproval',
        input: ({ context }) => context,
        onDone: [
          {
            guard: { type: 'isOk', params: ({ event }) => event.output },
            target: 'awaitingApproval',
            actions: assign({ tab: ({ event }) => (event.output.ok ? event.output.tab : undefined) }),
          },
          {
            target: 'recording',
            actions: {
              type: 'takeFailure',
              params: ({ event }) => ({ error: (event.output as { error: ToolFailure }).error }),
            },
          },
        ],
        onError: { target: 'recording', actions: failWith('internalApproval') },
      },
    },
    awaitingApproval: {
      entry: 'requestApproval',
      exit: 'releaseApproval',
      initial: 'waiting',
      states: {
        // Re-entered on every tick so a client with a progress token hears "waiting for approval".
        waiting: {
          after: {
            approvalProgressInterval: {
              guard: 'hasProgressToken',
              target: 'waiting',
              reenter: true,
              actions: ['countWaitingTick', 'reportWaitingForApproval'],
            },
          },
        },
      },
      after: {
        approvalTimeout: {
          target: 'recording',
          actions: [failWith('approvalTimeout'), { type: 'cancelApproval', params: { reason: 'timeout' } }],
        },
      },
      on: {
        'confirmation.response': [
          { guard: { type: 'isDecision', params: { decision: 'allow_once' } }, target: 'dispatching' },
          {
            guard: { type: 'isDecision', params: { decision: 'allow_always' } },
            target: 'dispatching',
            actions: 'persistAlways',
          },
          { target: 'recording', actions: failWith('approvalDenied') },
        ],
        'extension.lost': { target: 'recording', actions: failWith('lostDuringApproval') },
        cancel: {
          target: 'recording',
          actions: [failWith('cancelled'), { type: 'cancelApproval', params: { reason: 'cancelled' } }],
        },
        'daemon.stopping': {
          target: 'recording',
          actions: [
            failWith('shuttingDown'),
            { type: 'cancelApproval', params: { reason: 'daemon stopping' } },
          ],
        },
      },
    },
    // The plugin's pluginTab actor answers: a tab is ready and a slot is free, or why not.
    dispatching: {
      entry: 'requestSlot',
      on: {
        'slot.granted': 'running',
        'slot.refused': {
          target: 'recording',
          actions: { type: 'takeFailure', params: ({ event }) => ({ error: event.error }) },
        },
      },
    },
    running: {
      entry: 'announceStart',
      exit: 'releaseSlot',
      invoke: { id: 'dispatch', src: 'dispatch', input: ({ context }) => context },
      initial: 'waiting',
      states: {
        // The call timeout: re-armed by every progress report.
        waiting: {
          after: {
            callTimeout: {
              target: '#toolInvocation.recording',
              actions: [failWith('noAnswer'), 'announceEnd'],
            },
          },
        },
      },
      // The hard cap from dispatch: progress never extends it.
      after: { maxDuration: { target: 'recording', actions: [failWith('maxDuration'), 'announceEnd'] } },
      // Targeting the child from here re-enters only `waiting` (the call timeout), not `running`.
      on: {
        'tool.progress': [
          {
            guard: 'hasProgressToken',
            target: '.waiting',
            actions: {
              type: 'forwardProgress',
              params: ({ event }) => ({
                progress: event.progress,
                total: event.total,
                message: event.message,
              }),
            },
          },
          { target: '.waiting' },
        ],
        'dispatch.succeeded': {
          target: 'recording',
          actions: [
            assign({ outcome: ({ event }): ToolOutcome => ({ ok: true, output: event.output }) }),
            'announceEnd',
          ],
        },
        'dispatch.failed': {
          target: 'recording',
          actions: [
            assign({ outcome: ({ event }): ToolOutcome => ({ ok: false, error: event.error }) }),
            'announceEnd',
          ],
        },
        'extension.lost': { target: 'recording', actions: [failWith('lostDuringCall'), 'announceEnd'] },
        cancel: { target: 'recording', actions: [failWith('cancelled'), 'announceEnd'] },
        'daemon.stopping': { target: 'recording', actions: [failWith('shuttingDown'), 'announceEnd'] },
      },
    },
    // The outcome is known; the audit entry is written before the call answers. Nothing cancels this.
    recording: {
      // A cancel while the approval was being prepared leaves a reserved place: give it back.
      entry: 'releaseApproval',
      on: { cancel: {}, 'daemon.stopping': {} },
      invoke: {
        id: 'record',
        src: 'record',
        input: ({ context }) => context,
        onDone: [{ guard: 'succeeded', target: 'succeeded' }, { target: 'failed' }],
        onError: [{ guard: 'succeeded', target: 'succeeded' }, { target: 'failed' }],
      },
    },
    succeeded: { type: 'final' },
    failed: { type: 'final' },
  },
  output: ({ context }) => context.outcome ?? { ok: false, error: FAILURES.internalValidate },
})
