/**
 * Approvals asked through a 2025-11-25 session, for a client the user trusts to show them and whose
 * `initialize` declared it can show forms: the call's `elicitation/create` goes out on the call's own
 * event stream, the client's answer (a POST of the result) decides unless the side panel did first, and
 * a question decided elsewhere is withdrawn with `notifications/cancelled`. The question is the call's
 * approval channel (its `RequestContext.approval`): nothing about it is kept anywhere else.
 */
import type { ApprovalChannel } from '../calls/toolCalls'
import type { Decision } from '../protocol/messages'
import { approvalElicitation, decisionOf } from './clientApproval'
import { notificationJson, requestJson, sseEvent, type RpcId } from './callRunner'

/** One call's question to its session's client. */
export interface SessionQuestion extends ApprovalChannel {
  /** Whether `id` names this question while it is out (our elicitation's request id). */
  asks(id: RpcId): boolean
  /** The client's answer to it: decides, unless it decides nothing (dismissed, malformed) or `take` is false. */
  answered(result: unknown, take: boolean): void
  /** Takes the question back (`notifications/cancelled`); the side panel still asks. */
  withdraw(reason: string): void
}

export function sessionQuestion(send: (event: string) => void): SessionQuestion {
  // Our elicitation's request id names the call it is about (the approval's id is the call's).
  let requestId = ''
  let answer: ((decision: Decision) => void) | undefined
  const withdraw = (reason: string) => {
    if (!answer) return
    answer = undefined
    send(sseEvent(notificationJson('notifications/cancelled', { requestId, reason })))
  }
  return {
    open(request, give) {
      requestId = `bridge-approval-${request.id}`
      answer = give
      send(sseEvent(requestJson(requestId, 'elicitation/create', approvalElicitation(request))))
    },
    close: () => withdraw('the approval was decided elsewhere'),
    asks: (id) => answer !== undefined && id === requestId,
    answered(result, take) {
      const give = answer
      answer = undefined
      const decision = decisionOf(result)
      if (give && take && decision) give(decision)
    },
    withdraw,
  }
}
