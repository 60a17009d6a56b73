import { assign, emit, fromPromise, sendTo, setup } from 'xstate'
import { approvalMachine } from './approvalMachine'
import { REFUSALS } from './pluginTabMachine'
import { pluginTabOf } from './systemActors'
import { FAILURES, type FailureReason } from './toolFailures'
import {
  APPROVAL_TIMEOUT_MS,
  TOOL_MAX_DURATION_MS,
  TOOL_TIMEOUT_MS,
  type ApprovalRequest,
  type Decision,
} from '../src/protocol'
import type {
  CheckVerdict,
  PreparedInput,
  StepResult,
  ToolFailure,
  ToolInvocationContext,
  ToolInvocationEmitted,
  ToolInvocationEvent,
  ToolInvocationInput,
  ToolLogEntry,
  ToolOutcome,
} from './toolInvocationTypes'

export type * from './toolInvocationTypes'
export { FAILURES } from './toolFailures'

const notProvided = (what: string) => Promise.reject(new Error(`${what} is not provided`))
const passed = (context: ToolInvocationContext): Extract<CheckVerdict, { ok: true }> | undefined =>
  context.verdict?.ok ? context.verdict : undefined

/**
 * The types, the actors and actions the machine names (placeholders the daemon provides in
 * src/calls/invocationEffects.ts, apart from the plugin tab requests it makes itself) and its guards.
 */
const toolInvocationSetup = setup({
  types: {
    context: {} as ToolInvocationContext,
    input: {} as ToolInvocationInput,
    events: {} as ToolInvocationEvent,
    emitted: {} as ToolInvocationEmitted,
    output: {} as ToolOutcome,
  },
  actors: {
    approval: approvalMachine,
    /** A tool's daemon-side step on valid input (files read by path); its refusal is invalid input. */
    prepareInput: fromPromise<PreparedInput, ToolInvocationInput>(() => notProvided('prepareInput')),
    /**
     * Sends tool.dispatch (in the approved tab, when one was shown) and resolves with the extension's
     * answer as the call's outcome. Leaving `running` stops it (its `signal` aborts): an answer that
     * comes after that is dropped by XState itself.
     */
    dispatch: fromPromise<ToolOutcome, ToolInvocationContext>(() => notProvided('dispatch')),
    /** A place in the client's approval queue; a call one too many fails here and nobody is asked. */
    reserveApproval: fromPromise<StepResult, ToolInvocationInput>(() => notProvided('reserveApproval')),
  },
  actions: {
    /** Validation and permission, synchronously: the daemon provides it as an `assign` of `verdict`. */
    check: assign({ verdict: (): CheckVerdict => ({ ok: false, error: FAILURES.internalValidate }) }),
    /** The question the person is asked: the daemon provides it as an `assign` of `approvalRequest` with all the card shows. */
    describeApproval: assign({
      approvalRequest: ({ context }): ApprovalRequest => ({
        id: context.invocationId,
        plugin: context.plugin,
        tool: context.tool,
        params: context.input,
        expiresAt: Date.now() + APPROVAL_TIMEOUT_MS,
        client: context.client,
      }),
    }),
    /** Shows the question in the side panel. */
    requestApproval: () => undefined,
    /** The call's own client hears its approval open (it may be asked too) and close (the question is withdrawn). */
    approvalOpened: emit(({ context }) => ({
      type: 'approval.opened' as const,
      request: context.approvalRequest!,
    })),
    approvalClosed: emit({ type: 'approval.closed' as const }),
    /** The answer given in the client is the approval's answer; the side panel drops its card. */
    answerInClient: sendTo('approval', (_, params: { decision: Decision }) => ({
      type: 'confirmation.response' as const,
      decision: params.decision,
    })),
    /** Gives back the call's place in its client's approval queue; every way out of an approval runs it. */
    releaseApproval: () => undefined,
    cancelApproval: (_, _params: { reason: string }) => undefined,
    persistAlways: () => undefined,
    /** The user allowed the call once (the data-flow guard records it). */
    approvedOnce: () => undefined,
    announceStart: () => undefined,
    announceEnd: () => undefined,
    /** The question is put to the person now: the wait the audit subtracts starts here. */
    noteApprovalAsked: assign({ approvalAskedAt: () => Date.now() }),
    /** The approval is over, however it ended: how long the person took. */
    noteApprovalAnswered: assign({
      approvalMs: ({ context }) =>
        context.approvalAskedAt === undefined ? undefined : Math.max(0, Date.now() - context.approvalAskedAt),
    }),
    /** Writes the call's audit entry (synchronously: the outcome leaves only after it). */
    record: () => undefined,
    /** Asks the plugin's pluginTab actor for a slot; with no such actor the call is refused as tab_closed. */
    requestSlot: ({ context, system, self }) => {
      const tab = pluginTabOf(system, context.plugin)
      if (tab) tab.send({ type: 'slot.request', replyTo: self })
      else self.send({ type: 'slot.refused', error: REFUSALS.closed(context.plugin) })
    },
    /** Asks the plugin's pluginTab actor which tab an approved call will run in. */
    requestTab: ({ context, system, self }) => {
      const tab = pluginTabOf(system, context.plugin)
      if (tab) tab.send({ type: 'tab.choose', replyTo: self })
      else self.send({ type: 'tab.refused', error: REFUSALS.closed(context.plugin) })
    },
    releaseSlot: ({ context, system }) => pluginTabOf(system, context.plugin)?.send({ type: 'slot.release' }),
    forwardProgress: emit((_, params: { progress: number; total?: number; message?: string }) => ({
      type: 'tool.progress' as const,
      progress: params.progress,
      ...(params.total === undefined ? {} : { total: params.total }),
      ...(params.message === undefined ? {} : { message: params.message }),
    })),
    forwardLog: emit((_, entry: ToolLogEntry) => ({ type: 'tool.log' as const, ...entry })),
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
    isOk: (_, result: { ok: boolean }) => result.ok,
    isRefused: ({ context }) => !passed(context),
    needsPreparation: ({ context }) => passed(context)?.prepare === true,
    isOff: ({ context }) => passed(context)?.permission === 'off',
    // A call the data-flow guard asks about goes to the approval like an `ask` tool's.
    isAskWithoutExtension: ({ context }) =>
      (passed(context)?.permission === 'ask' || context.flow !== undefined) &&
      !passed(context)?.extensionConnected,
    isAsk: ({ context }) => passed(context)?.permission === 'ask' || context.flow !== undefined,
    isWithoutExtension: ({ context }) => !passed(context)?.extensionConnected,
    hasProgressToken: ({ context }) => context.hasProgressToken,
    /** A log entry counts for this call only when the call's own plugin wrote it. */
    isOwnPluginLog: ({ context }, params: { plugin: string }) => params.plugin === context.plugin,
    /** "Always" from the client only answers a flow question; a tool's "always" stays in the side panel. */
    mayAnswerInClient: ({ context }, params: { decision: Decision }) =>
      params.decision !== 'allow_always' || context.flow !== undefined,
    isDecision: (_, params: { output: unknown; decision: Decision }) =>
      typeof params.output === 'object' &&
      params.output !== null &&
      'decision' in params.output &&
      params.output.decision === params.decision,
    /**
     * A site's own tool that no longer has the declaration the call was checked with (or is gone): the
     * daemon provides it, comparing with its catalog.
     */
    declarationChanged: () => false,
    isTimedOut: (_, params: { output: unknown }) =>
      typeof params.output === 'object' && params.output !== null && 'timedOut' in params.output,
  },
  delays: {
    callTimeout: TOOL_TIMEOUT_MS,
    maxDuration: TOOL_MAX_DURATION_MS,
  },
})

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
