import { describe, expect, it } from 'vitest'
import { createActor, createMachine, SimulatedClock, type AnyActorRef } from 'xstate'
import { approvalMachine, type ApprovalWaiting } from '../../../machines/approvalMachine'
import { APPROVAL_PROGRESS_INTERVAL_MS, APPROVAL_TIMEOUT_MS } from '../../../src/protocol'

/** The approval under a parent that records what it reports, on a simulated clock. */
function startApproval(hasProgressToken: boolean) {
  const reports: number[] = []
  const clock = new SimulatedClock()
  const parent = createActor(
    createMachine({
      types: {} as { events: ApprovalWaiting },
      invoke: { id: 'approval', src: approvalMachine, input: { hasProgressToken } },
      on: { 'approval.waiting': { actions: ({ event }) => void reports.push(event.progress) } },
    }),
    { clock },
  ).start()
  const approval = parent.getSnapshot().children.approval as AnyActorRef
  return { approval, clock, reports }
}

describe('approvalMachine', () => {
  it('ends with the user’s decision', () => {
    const { approval } = startApproval(false)
    approval.send({ type: 'confirmation.response', decision: 'allow_always' })
    expect(approval.getSnapshot().status).toBe('done')
    expect(approval.getSnapshot().output).toEqual({ decision: 'allow_always' })
  })

  it('ends as timed out when nobody answers within the approval timeout', () => {
    const { approval, clock } = startApproval(false)
    clock.increment(APPROVAL_TIMEOUT_MS - 1)
    expect(approval.getSnapshot().status).toBe('active')
    clock.increment(1)
    expect(approval.getSnapshot().output).toEqual({ timedOut: true })
  })

  it('reports "waiting" to its call on every tick, only for a client with a progress token', () => {
    const withToken = startApproval(true)
    const without = startApproval(false)
    for (let tick = 0; tick < 3; tick++) {
      withToken.clock.increment(APPROVAL_PROGRESS_INTERVAL_MS)
      without.clock.increment(APPROVAL_PROGRESS_INTERVAL_MS)
    }
    expect(withToken.reports).toEqual([1, 2, 3])
    expect(without.reports).toEqual([])
  })
})
