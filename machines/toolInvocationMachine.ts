import { assign, sendTo } from 'xstate'
import { FAILURES, type FailureReason } from './toolFailures'
import { toolInvocationSetup } from './toolInvocationSetup'
import type { ToolFailure } from './toolInvocationTypes'

export type * from './toolInvocationTypes'
export { FAILURES } from './toolFailures'

const failWith = (reason: FailureReason) => ({ type: 'fail', params: { reason } }) as const

/**
 * The ways on from a passed check (`routing`, also the last part of `checking`): off fails, ask goes
 * to the approval, auto to dispatching, each only with an extension to reach.
 */
const ROUTES = [
  { guard: 'isOff', target: 'failed', actions: failWith('permissionOff') },
  { guard: 'isAskWithoutExtension', target: 'failed', actions: failWith('askWithoutExtension') },
  { guard: 'isAsk', target: 'choosingTab' },
  { guard: 'isWithoutExtension', target: 'failed', actions: failWith('noExtension') },
  { target: 'dispatching' },
] as const

/**
 * One tool call: checking -> (preparingInput -> routing) -> (choosingTab -> reservingApproval ->
 * awaitingApproval) -> dispatching -> running -> succeeded | failed. `checking` runs validation and
 * the permission check as one synchronous step (`check`, provided by the daemon) and routes the call
 * on in the same step. The plugin's `pluginTab:<plugin>` actor decides whether a tab is ready: it
 * names the tab an approval shows (`tab.choose`) and grants the slot a dispatch needs
 * (`slot.request`); leaving `running` gives the slot back. The human's part is the `approval` child.
 * `running` invokes the `dispatch` actor (tool.dispatch): the extension's answer is its output, and
 * leaving `running` stops it, so a late answer is dropped. The input a tool's daemon-side step
 * prepared (`prepareInput`) and the time the person took to answer land in the call's context. Each final state writes the audit entry on entry (`record`), so
 * the outcome, the actor's output, leaves only after it; progress is an emitted `tool.progress`
 * event, and a log entry the call's own plugin wrote while it runs an emitted `tool.log` (both for
 * the call's client only); `announceEnd` runs on every way out of `running`.
 */
export const toolInvocationMachine = toolInvocationSetup.createMachine({
  id: 'toolInvocation',
  context: ({ input }) => input,
  initial: 'checking',
  on: {
    cancel: { target: '.failed', actions: failWith('cancelled') },
    'daemon.stopping': { target: '.failed', actions: failWith('shuttingDown') },
    // A slot granted after the call moved on (it was cancelled meanwhile) goes straight back.
    'slot.granted': { actions: 'releaseSlot' },
  },
  states: {
    checking: {
      entry: 'check',
      always: [
        {
          guard: 'isRefused',
          target: 'failed',
          actions: {
            type: 'takeFailure',
            params: ({ context }) => ({
              error: context.verdict?.ok === false ? context.verdict.error : FAILURES.internalValidate,
            }),
          },
        },
        { guard: 'needsPreparation', target: 'preparingInput' },
        ...ROUTES,
      ],
    },
    preparingInput: {
      invoke: {
        id: 'prepareInput',
        src: 'prepareInput',
        input: ({ context }) => context,
        onDone: [
          {
            guard: { type: 'isOk', params: ({ event }) => event.output },
            target: 'routing',
            actions: assign({
              preparedInput: ({ event }) => (event.output.ok ? event.output.input : undefined),
              flow: ({ event }) => (event.output.ok ? event.output.flow : undefined),
            }),
          },
          {
            target: 'failed',
            actions: {
              type: 'takeFailure',
              params: ({ event }) => ({ error: (event.output as { error: ToolFailure }).error }),
            },
          },
        ],
        onError: { target: 'failed', actions: failWith('internalValidate') },
      },
    },
    // After the input's preparation: the same ways on as at the end of `checking`.
    routing: { always: [...ROUTES] },
    // The plugin's pluginTab actor names the ready tab the approval shows and the call will run in.
    choosingTab: {
      entry: 'requestTab',
      on: {
        'tab.chosen': {
          target: 'reservingApproval',
          actions: assign({ tab: ({ event }) => event.tab }),
        },
        'tab.refused': {
          target: 'failed',
          actions: { type: 'takeFailure', params: ({ event }) => ({ error: event.error }) },
        },
      },
    },
    reservingApproval: {
      invoke: {
        id: 'reserveApproval',
        src: 'reserveApproval',
        input: ({ context }) => context,
        onDone: [
          { guard: { type: 'isOk', params: ({ event }) => event.output }, target: 'awaitingApproval' },
          {
            target: 'failed',
            actions: {
              type: 'takeFailure',
              params: ({ event }) => ({ error: (event.output as { error: ToolFailure }).error }),
            },
          },
        ],
        onError: { target: 'failed', actions: failWith('internalApproval') },
      },
    },
    awaitingApproval: {
      entry: ['noteApprovalAsked', 'describeApproval', 'requestApproval', 'approvalOpened'],
      exit: ['noteApprovalAnswered', 'releaseApproval', 'approvalClosed'],
      invoke: {
        id: 'approval',
        src: 'approval',
        input: ({ context }) => ({ hasProgressToken: context.hasProgressToken }),
        onDone: [
          {
            guard: {
              type: 'isDecision',
              params: ({ event }) => ({ output: event.output, decision: 'allow_once' }),
            },
            target: 'dispatching',
            actions: 'approvedOnce',
          },
          {
            guard: {
              type: 'isDecision',
              params: ({ event }) => ({ output: event.output, decision: 'allow_always' }),
            },
            target: 'dispatching',
            actions: 'persistAlways',
          },
          {
            guard: { type: 'isTimedOut', params: ({ event }) => ({ output: event.output }) },
            target: 'failed',
            actions: [failWith('approvalTimeout'), { type: 'cancelApproval', params: { reason: 'timeout' } }],
          },
          { target: 'failed', actions: failWith('approvalDenied') },
        ],
      },
      on: {
        'confirmation.response': { actions: sendTo('approval', ({ event }) => event) },
        'approval.answeredInClient': {
          guard: { type: 'mayAnswerInClient', params: ({ event }) => ({ decision: event.decision }) },
          actions: [
            { type: 'answerInClient', params: ({ event }) => ({ decision: event.decision }) },
            { type: 'cancelApproval', params: { reason: 'answered in the MCP client' } },
          ],
        },
        'approval.waiting': {
          actions: {
            type: 'forwardProgress',
            params: ({ event }) => ({ progress: event.progress, message: 'waiting for approval' }),
          },
        },
        'extension.lost': { target: 'failed', actions: failWith('lostDuringApproval') },
        // The card shows the declaration the call was checked with: one that changed withdraws it.
        'catalog.changed': {
          guard: 'declarationChanged',
          target: 'failed',
          actions: [
            failWith('declarationChanged'),
            { type: 'cancelApproval', params: { reason: 'the site changed the tool' } },
          ],
        },
        cancel: {
          target: 'failed',
          actions: [failWith('cancelled'), { type: 'cancelApproval', params: { reason: 'cancelled' } }],
        },
        'daemon.stopping': {
          target: 'failed',
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
          target: 'failed',
          actions: { type: 'takeFailure', params: ({ event }) => ({ error: event.error }) },
        },
      },
    },
    running: {
      entry: 'announceStart',
      exit: 'releaseSlot',
      // The extension's answer is the dispatch actor's output: once the call leaves `running`, it is stopped.
      invoke: {
        id: 'dispatch',
        src: 'dispatch',
        input: ({ context }) => context,
        onDone: [
          {
            guard: { type: 'isOk', params: ({ event }) => event.output },
            target: 'succeeded',
            actions: [assign({ outcome: ({ event }) => event.output }), 'announceEnd'],
          },
          { target: 'failed', actions: [assign({ outcome: ({ event }) => event.output }), 'announceEnd'] },
        ],
        onError: { target: 'failed', actions: [failWith('internalDispatch'), 'announceEnd'] },
      },
      initial: 'waiting',
      states: {
        // The call timeout: re-armed by every progress report.
        waiting: {
          after: {
            callTimeout: {
              target: '#toolInvocation.failed',
              actions: [failWith('noAnswer'), 'announceEnd'],
            },
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
        'tool.log': {
          guard: { type: 'isOwnPluginLog', params: ({ event }) => ({ plugin: event.plugin }) },
          actions: { type: 'forwardLog', params: ({ event }) => event.entry },
        },
        'extension.lost': { target: 'failed', actions: [failWith('lostDuringCall'), 'announceEnd'] },
        cancel: { target: 'failed', actions: [failWith('cancelled'), 'announceEnd'] },
        'daemon.stopping': { target: 'failed', actions: [failWith('shuttingDown'), 'announceEnd'] },
      },
    },
    // The outcome is known: the audit entry is written, then the call answers. Nothing cancels this.
    // (A cancel while the approval place was being reserved leaves it taken: it is given back here.)
    succeeded: { type: 'final', entry: ['releaseApproval', 'record'] },
    failed: { type: 'final', entry: ['releaseApproval', 'record'] },
  },
  output: ({ context }) => context.outcome ?? { ok: false, error: FAILURES.internalValidate },
})
