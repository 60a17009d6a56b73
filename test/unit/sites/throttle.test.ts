import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { throttle } from '../../../src/sites/throttle'

describe('throttle', () => {
  beforeEach(() => vi.useFakeTimers())
  afterEach(() => vi.useRealTimers())

  it('runs at once, then at most once per interval however often it is called', () => {
    let runs = 0
    const call = throttle(1_000, () => runs++)
    call()
    expect(runs).toBe(1)
    for (let i = 0; i < 100; i++) {
      call()
      vi.advanceTimersByTime(20)
    }
    // 2 s of calls every 20 ms: the first run, then one per second.
    expect(runs).toBe(3)
    vi.advanceTimersByTime(1_000)
    expect(runs).toBe(3)
  })

  it('runs the last call at the end of the interval, unless cancelled', () => {
    let runs = 0
    const call = throttle(1_000, () => runs++)
    call()
    call()
    vi.advanceTimersByTime(1_000)
    expect(runs).toBe(2)
    call()
    call.cancel()
    vi.advanceTimersByTime(5_000)
    expect(runs).toBe(2)
  })
})
