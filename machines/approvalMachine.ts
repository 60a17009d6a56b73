import { assign, sendParent, setup } from 'xstate'
import { APPROVAL_PROGRESS_INTERVAL_MS, APPROVAL_TIMEOUT_MS, type Decision } from '../src/protocol'

export interface ApprovalInput {
  /** The MCP request carried a progress token: "waiting for approval" is reported only then. */
  hasProgressToken: boolean
}

/** How the wait ended: the user's decision, or nobody answered in time. */
export type ApprovalOutput = { decision: Decision } | { timedOut: true }

export type ApprovalEvent = { type: 'confirmation.response'; decision: Decision }

/** What the approval tells the call (its parent) while it waits: the `progress` of the next report. */
export type ApprovalWaiting = { type: 'approval.waiting'; progress: number }

/**
 * The human's part of one call, a child of toolInvocation while it is in `awaitingApproval`:
 * waiting -> decided | timedOut. While it waits it reports "waiting for approval" to the call on
 * every tick (only for a client with a progress token); the approval deadline (5 min) ends it.
 * Leaving `awaitingApproval` for any other reason (cancel, extension lost, shutdown) stops it.
 */
export const approvalMachine = setup({
  types: {
    input: {} as ApprovalInput,
    context: {} as ApprovalInput & { waitingTicks: number; decision?: Decision },
    events: {} as ApprovalEvent,
    output: {} as ApprovalOutput,
  },
  actions: {
    reportWaiting: sendParent(({ context }): ApprovalWaiting => ({
      type: 'approval.waiting',
      progress: context.waitingTicks,
    })),
  },
  guards: {
    hasProgressToken: ({ context }) => context.hasProgressToken,
  },
  delays: {
    approvalTimeout: APPROVAL_TIMEOUT_MS,
    approvalProgressInterval: APPROVAL_PROGRESS_INTERVAL_MS,
  },
}).createMachine({
  id: 'approval',
  context: ({ input }) => ({ ...input, waitingTicks: 0 }),
  initial: 'waiting',
  states: {
    waiting: {
      initial: 'ticking',
      states: {
        // Re-entered on every tick so a client with a progress token hears "waiting for approval".
        ticking: {
          after: {
            approvalProgressInterval: {
              guard: 'hasProgressToken',
              target: 'ticking',
              reenter: true,
              actions: [assign({ waitingTicks: ({ context }) => context.waitingTicks + 1 }), 'reportWaiting'],
            },
          },
        },
      },
      after: { approvalTimeout: 'timedOut' },
      on: {
        'confirmation.response': {
          target: 'decided',
          actions: assign({ decision: ({ event }) => event.decision }),
        },
      },
    },
    decided: { type: 'final' },
    timedOut: { type: 'final' },
  },
  output: ({ context }) => (context.decision ? { decision: context.decision } : { timedOut: true }),
})
