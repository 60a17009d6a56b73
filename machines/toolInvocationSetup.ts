/**
 * The setup of `toolInvocationMachine` (./toolInvocationMachine.ts): its types, the actors and actions
 * it names (placeholders the daemon provides in src/calls/invocationEffects.ts, apart from the plugin
 * tab requests it makes itself) and its guards. The states live in ./toolInvocationMachine.ts.
 */
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

const notProvided = (what: string) => Promise.reject(new Error(`${what} is not provided`))
const passed = (context: ToolInvocationContext): Extract<CheckVerdict, { ok: true }> | undefined =>
  context.verdict?.ok ? context.verdict : undefined

export const toolInvocationSetup = setup({
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
