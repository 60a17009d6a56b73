/**
 * Between a call waiting for approval and the MCP request that started it: the call's effects report
 * when its approval opens (with what the side panel shows) and closes (decided anywhere, expired,
 * cancelled); the MCP layer, for a client the user trusts to show approvals, watches its call and
 * answers for the user when the user answered in the client. `answer` decides only while the approval
 * is open: the first answer, from the client or the side panel, is the one the call takes.
 *
 * @example
 *   const broker = createApprovalBroker({ decide: (id, decision) => sendToCall(id, decision) })
 *   broker.watch(callId, { opened: (request) => ask(request), closed: () => stopAsking() })
 *   broker.answer(callId, 'allow_once') // true when it decided
 */
import type { ApprovalRequest, ClientDecision } from './clientApproval'

export interface ApprovalWatcher {
  opened(request: ApprovalRequest): void
  closed(): void
}

export interface ApprovalBroker {
  /** The call's approval opened (effects). */
  opened(request: ApprovalRequest): void
  /** The call's approval closed, for any reason (effects). */
  closed(id: string): void
  /** Watches one call; returns the way to stop. A request already open is reported at once. */
  watch(id: string, watcher: ApprovalWatcher): () => void
  /** The user's answer given in the client; false (nothing done) unless the approval is still open. */
  answer(id: string, decision: ClientDecision): boolean
  /** The open request of a call, if any. */
  request(id: string): ApprovalRequest | undefined
}

export function createApprovalBroker(deps: {
  /** Hands the decision to the call, and tells the side panel the request is answered. */
  decide(id: string, decision: ClientDecision): void
}): ApprovalBroker {
  const open = new Map<string, ApprovalRequest>()
  const watchers = new Map<string, ApprovalWatcher>()
  return {
    opened(request) {
      open.set(request.id, request)
      watchers.get(request.id)?.opened(request)
    },
    closed(id) {
      if (!open.delete(id)) return
      watchers.get(id)?.closed()
    },
    watch(id, watcher) {
      watchers.set(id, watcher)
      const request = open.get(id)
      if (request) watcher.opened(request)
      return () => {
        if (watchers.get(id) === watcher) watchers.delete(id)
      }
    },
    answer(id, decision) {
      if (!open.has(id)) return false
      // "Always" from the client only answers a flow question; a tool's "always" stays in the side panel.
      if (decision === 'allow_always' && !open.get(id)?.flow) return false
      open.delete(id)
      watchers.get(id)?.closed()
      deps.decide(id, decision)
      return true
    },
    request: (id) => open.get(id),
  }
}
