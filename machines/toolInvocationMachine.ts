import { assign, fromCallback, fromPromise, setup } from 'xstate'
import {
  APPROVAL_PROGRESS_INTERVAL_MS,
  APPROVAL_TIMEOUT_MS,
  TOOL_MAX_DURATION_MS,
  TOOL_TIMEOUT_MS,
  type Decision,
  type Permission,
  type ToolErrorCode,
} from '../src/protocol'

/** Why a call failed: a code of DESIGN.md section 6, a human message, the audit category. */
export interface ToolFailure {
  code: ToolErrorCode
  message: string
  category?: string
}

export type ToolOutcome = { ok: true; output: unknown } | { ok: false; error: ToolFailure }
export type StepResult = { ok: true } | { ok: false; error: ToolFailure }

export interface ToolInvocationInput {
  /** Also the `dispatchId` on the wire and the approval id. */
  invocationId: string
  plugin: string
  /** Prefixed tool name as the client called it. */
  tool: string
  input: unknown
  /** The MCP request carried `_meta.progressToken`: progress is forwarded only then. */
  hasProgressToken: boolean
}

export interface ToolInvocationContext extends ToolInvocationInput {
  dispatched: boolean
  outcome?: ToolOutcome
}

export interface PermissionCheck {
  permission: Permission
  extensionConnected: boolean
}

export type ToolInvocationEvent =
  | { type: 'confirmation.response'; decision: Decision }
  | { type: 'tool.progress'; progress: number; total?: number; message?: string }
  | { type: 'dispatch.succeeded'; output: unknown }
  | { type: 'dispatch.failed'; error: ToolFailure }
  | { type: 'extension.lost' }
  | { type: 'cancel'; reason: string }

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
  cancelled: { code: 'cancelled', message: 'the client cancelled the call', category: 'connection' },
} satisfies Record<string, ToolFailure>
type FailureReason = keyof typeof FAILURES

const failWith = (reason: FailureReason) => ({ type: 'fail', params: { reason } }) as const

/**
 * One tool call: validating -> checkingPermission -> (awaitingApproval) -> dispatching -> running ->
 * succeeded | failed. Each final state records the outcome exactly once (audit entry, then the
 * answer). Effects, the steps that read daemon state and the real delays are provided by the daemon
 * with `.provide()`; `announceEnd` runs on every way out of `running`.
 */
export const toolInvocationMachine = setup({
  types: {
    context: {} as ToolInvocationContext,
    input: {} as ToolInvocationInput,
    events: {} as ToolInvocationEvent,
  },
  actors: {
    validate: fromPromise<StepResult, ToolInvocationInput>(() => notProvided('validate')),
    checkPermission: fromPromise<PermissionCheck, ToolInvocationInput>(() => notProvided('checkPermission')),
    /** Extension connected, tab state, in-flight slot: all or nothing (a slot is held only on ok). */
    prepareDispatch: fromPromise<StepResult, ToolInvocationInput>(() => notProvided('prepareDispatch')),
    /** Sends tool.dispatch and reports dispatch.succeeded / dispatch.failed; stopping it forgets the request. */
    dispatch: fromCallback<ToolInvocationEvent, ToolInvocationInput>(() => undefined),
  },
  actions: {
    requestApproval: () => undefined,
    cancelApproval: (_, _params: { reason: string }) => undefined,
    reportWaitingForApproval: () => undefined,
    persistAlways: () => undefined,
    announceStart: () => undefined,
    forwardProgress: (_, _params: { progress: number; total?: number; message?: string }) => undefined,
    releaseSlot: () => undefined,
    announceEnd: () => undefined,
    recordOutcome: () => undefined,
    fail: assign({
      outcome: (_, params: { reason: FailureReason }): ToolOutcome => ({
        ok: false,
        error: FAILURES[params.reason],
      }),
    }),
    takeResult: assign({
      outcome: (_, params: StepResult): ToolOutcome => (params.ok ? { ok: true, output: null } : params),
    }),
  },
  guards: {
    isOk: (_, result: StepResult) => result.ok,
    isOff: (_, check: PermissionCheck) => check.permission === 'off',
    isAskWithoutExtension: (_, check: PermissionCheck) =>
      check.permission === 'ask' && !check.extensionConnected,
    isAsk: (_, check: PermissionCheck) => check.permission === 'ask',
    hasProgressToken: ({ context }) => context.hasProgressToken,
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
  context: ({ input }) => ({ ...input, dispatched: false }),
  initial: 'validating',
  on: { cancel: { target: '.failed', actions: failWith('cancelled') } },
  states: {
    validating: {
      invoke: {
        id: 'validate',
        src: 'validate',
        input: ({ context }) => context,
        onDone: [
          { guard: { type: 'isOk', params: ({ event }) => event.output }, target: 'checkingPermission' },
          { target: 'failed', actions: { type: 'takeResult', params: ({ event }) => event.output } },
        ],
        onError: { target: 'failed', actions: failWith('internalValidate') },
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
            target: 'failed',
            actions: failWith('permissionOff'),
          },
          {
            guard: { type: 'isAskWithoutExtension', params: ({ event }) => event.output },
            target: 'failed',
            actions: failWith('askWithoutExtension'),
          },
          { guard: { type: 'isAsk', params: ({ event }) => event.output }, target: 'awaitingApproval' },
          { target: 'dispatching' },
        ],
        onError: { target: 'failed', actions: failWith('internalPermission') },
      },
    },
    awaitingApproval: {
      entry: 'requestApproval',
      initial: 'waiting',
      states: {
        // Re-entered on every tick so a client with a progress token hears "waiting for approval".
        waiting: {
          after: {
            approvalProgressInterval: {
              guard: 'hasProgressToken',
              target: 'waiting',
              reenter: true,
              actions: 'reportWaitingForApproval',
            },
          },
        },
      },
      after: {
        approvalTimeout: {
          target: 'failed',
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
          { target: 'failed', actions: failWith('approvalDenied') },
        ],
        'extension.lost': { target: 'failed', actions: failWith('lostDuringApproval') },
        cancel: {
          target: 'failed',
          actions: [failWith('cancelled'), { type: 'cancelApproval', params: { reason: 'cancelled' } }],
        },
      },
    },
    dispatching: {
      invoke: {
        id: 'prepareDispatch',
        src: 'prepareDispatch',
        input: ({ context }) => context,
        onDone: [
          { guard: { type: 'isOk', params: ({ event }) => event.output }, target: 'running' },
          { target: 'failed', actions: { type: 'takeResult', params: ({ event }) => event.output } },
        ],
        onError: { target: 'failed', actions: failWith('internalDispatch') },
      },
    },
    running: {
      entry: [assign({ dispatched: true }), 'announceStart'],
      exit: 'releaseSlot',
      invoke: { id: 'dispatch', src: 'dispatch', input: ({ context }) => context },
      initial: 'waiting',
      states: {
        // The call timeout: re-armed by every progress report.
        waiting: {
          after: {
            callTimeout: { target: '#toolInvocation.failed', actions: [failWith('noAnswer'), 'announceEnd'] },
          },
        },
      },
      // The hard cap from dispatch: progress never extends it.
      after: { maxDuration: { target: 'failed', actions: [failWith('maxDuration'), 'announceEnd'] } },
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
          target: 'succeeded',
          actions: [
            assign({ outcome: ({ event }): ToolOutcome => ({ ok: true, output: event.output }) }),
            'announceEnd',
          ],
        },
        'dispatch.failed': {
          target: 'failed',
          actions: [
            assign({ outcome: ({ event }): ToolOutcome => ({ ok: false, error: event.error }) }),
            'announceEnd',
          ],
        },
        'extension.lost': { target: 'failed', actions: [failWith('lostDuringCall'), 'announceEnd'] },
        cancel: { target: 'failed', actions: [failWith('cancelled'), 'announceEnd'] },
      },
    },
    succeeded: { type: 'final', entry: 'recordOutcome' },
    failed: { type: 'final', entry: 'recordOutcome' },
  },
  output: ({ context }) => context.outcome,
})
