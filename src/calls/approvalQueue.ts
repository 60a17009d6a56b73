/**
 * Approvals waiting per MCP client. An agent that fires calls faster than the user answers must not
 * bury the side panel: at most `max` of one client's calls wait at once, and the next one fails at
 * once with `approval_queue_full`. Other clients keep their own room.
 *
 * @example
 *   const queue = createApprovalQueue(MAX_APPROVALS_WAITING_PER_CLIENT)
 *   if (!queue.reserve('research-agent', invocationId)) fail('approval_queue_full')
 *   // ... on decision, timeout, cancel or any end of the call:
 *   queue.release(invocationId)
 */
export interface ApprovalQueue {
  /** Takes a place for the call; false (nothing taken) when the client already has `max` waiting. */
  reserve(client: string, invocationId: string): boolean
  /** Gives the call's place back; a call without one is ignored, so every way out may call it. */
  release(invocationId: string): void
  /** How many of the client's calls wait now. */
  waiting(client: string): number
}

export function createApprovalQueue(max: number): ApprovalQueue {
  const clientOf = new Map<string, string>()
  const counts = new Map<string, number>()
  return {
    reserve(client, invocationId) {
      if (clientOf.has(invocationId)) return true
      const now = counts.get(client) ?? 0
      if (now >= max) return false
      counts.set(client, now + 1)
      clientOf.set(invocationId, client)
      return true
    },
    release(invocationId) {
      const client = clientOf.get(invocationId)
      if (client === undefined) return
      clientOf.delete(invocationId)
      const left = (counts.get(client) ?? 1) - 1
      if (left > 0) counts.set(client, left)
      else counts.delete(client)
    },
    waiting: (client) => counts.get(client) ?? 0,
  }
}
