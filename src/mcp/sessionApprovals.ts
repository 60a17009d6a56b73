/**
 * Approvals asked through a 2025-11-25 session, for a client the user trusts to show them and whose
 * `initialize` declared it can show forms: the call's `elicitation/create` goes out on the call's own
 * event stream, the client's answer (a POST of the result) decides unless the side panel did first, and
 * a question decided elsewhere is withdrawn with `notifications/cancelled`.
 */
import type { ApprovalBroker } from './approvalBroker'
import { approvalElicitation, decisionOf } from './clientApproval'
import { notificationJson, requestJson, sseEvent, type RpcId } from './mcpMessages'

/** A question put to the client: the call it is about, and how to take it back. */
export interface AskedApproval {
  call: string
  withdraw(reason: string): void
}

/**
 * Asks the call's approval through the session once it opens; `pending` maps our request id to the
 * question. Returns the way to stop (when the call ends).
 */
export function askThroughSession(
  approvals: ApprovalBroker,
  pending: Map<RpcId, AskedApproval>,
  callId: string,
  send: (event: string) => void,
): () => void {
  const requestId = `bridge-approval-${callId}`
  const stop = approvals.watch(callId, {
    opened: (request) => {
      pending.set(requestId, {
        call: callId,
        withdraw: (reason) => {
          if (!pending.delete(requestId)) return
          send(sseEvent(notificationJson('notifications/cancelled', { requestId, reason })))
        },
      })
      send(sseEvent(requestJson(requestId, 'elicitation/create', approvalElicitation(request))))
    },
    closed: () => pending.get(requestId)?.withdraw('the approval was decided elsewhere'),
  })
  return () => {
    stop()
    pending.delete(requestId)
  }
}

/** The client's answer to one of our questions: it decides if it is one, and the approval still open. */
export function answerFromSession(
  approvals: ApprovalBroker,
  pending: Map<RpcId, AskedApproval>,
  id: RpcId | undefined,
  result: unknown,
): void {
  const asked = id === undefined ? undefined : pending.get(id)
  if (id === undefined || asked === undefined) return
  pending.delete(id)
  const decision = decisionOf(result)
  if (decision) approvals.answer(asked.call, decision)
}
