import { describe, expect, it } from 'vitest'
import { createRateLimiter } from '../../../src/http/rateLimit'
import { ADMIN_RATE_LIMIT_PER_MIN, SESSION_RATE_LIMIT_PER_MIN } from '../../../src/protocol/constants'

function clock(start = 1_000_000) {
  let now = start
  return { now: () => now, advance: (ms: number) => (now += ms) }
}

describe('createRateLimiter', () => {
  it('allows 10 admin calls in a minute and refuses the 11th', () => {
    const time = clock()
    const limiter = createRateLimiter({ limit: ADMIN_RATE_LIMIT_PER_MIN, now: time.now })
    const results = Array.from({ length: 11 }, () => limiter.take())
    expect(results).toEqual([...Array<boolean>(10).fill(true), false])
  })

  it('allows 5 session creations in a minute and refuses the 6th', () => {
    const limiter = createRateLimiter({ limit: SESSION_RATE_LIMIT_PER_MIN, now: clock().now })
    expect(Array.from({ length: 6 }, () => limiter.take())).toEqual([true, true, true, true, true, false])
  })

  it('slides: a hit becomes available again exactly 60 s after the oldest one', () => {
    const time = clock()
    const limiter = createRateLimiter({ limit: 2, now: time.now })
    expect(limiter.take()).toBe(true)
    time.advance(30_000)
    expect(limiter.take()).toBe(true)
    expect(limiter.take()).toBe(false)
    time.advance(29_999)
    expect(limiter.take()).toBe(false)
    time.advance(1)
    expect(limiter.take()).toBe(true)
    expect(limiter.take()).toBe(false)
    time.advance(30_000)
    expect(limiter.take()).toBe(true)
  })

  it('does not count refused attempts against the window', () => {
    const time = clock()
    const limiter = createRateLimiter({ limit: 1, now: time.now })
    expect(limiter.take()).toBe(true)
    for (let i = 0; i < 100; i++) {
      time.advance(500)
      expect(limiter.take()).toBe(false)
    }
    time.advance(10_000)
    expect(limiter.take()).toBe(true)
  })

  it('keeps separate windows per key', () => {
    const limiter = createRateLimiter({ limit: 1, now: clock().now })
    expect(limiter.take('a')).toBe(true)
    expect(limiter.take('b')).toBe(true)
    expect(limiter.take('a')).toBe(false)
  })

  it('says when a key over its limit may take again: when its oldest hit leaves the window', () => {
    const time = clock()
    const limiter = createRateLimiter({ limit: 2, now: time.now })
    expect(limiter.freesInMs('a')).toBe(0)
    limiter.take('a')
    time.advance(20_000)
    limiter.take('a')
    expect(limiter.freesInMs('a')).toBe(40_000)
    time.advance(39_000)
    expect(limiter.freesInMs('a')).toBe(1_000)
    time.advance(1_000)
    expect(limiter.freesInMs('a')).toBe(0)
    expect(limiter.freesInMs('b')).toBe(0)
  })
})
