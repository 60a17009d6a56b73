import { describe, expect, it } from 'vitest'
import { createApprovalQueue } from '../../../src/calls/approvalQueue'

describe('approval queue', () => {
  it('lets each client have at most `max` calls waiting, and other clients their own room', () => {
    const queue = createApprovalQueue(2)
    expect(queue.reserve('a', 'a1')).toBe(true)
    expect(queue.reserve('a', 'a2')).toBe(true)
    expect(queue.reserve('a', 'a3')).toBe(false)
    expect(queue.waiting('a')).toBe(2)
    expect(queue.reserve('b', 'b1')).toBe(true)
    expect(queue.waiting('b')).toBe(1)
  })

  it('gives a place back once, however many ways out call release', () => {
    const queue = createApprovalQueue(1)
    expect(queue.reserve('a', 'a1')).toBe(true)
    queue.release('a1')
    queue.release('a1')
    queue.release('never-reserved')
    expect(queue.waiting('a')).toBe(0)
    expect(queue.reserve('a', 'a2')).toBe(true)
    expect(queue.reserve('a', 'a3')).toBe(false)
  })

  it('counts a call that reserves twice once', () => {
    const queue = createApprovalQueue(2)
    queue.reserve('a', 'a1')
    queue.reserve('a', 'a1')
    expect(queue.waiting('a')).toBe(1)
  })
})
