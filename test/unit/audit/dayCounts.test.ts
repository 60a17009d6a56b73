import { describe, expect, it } from 'vitest'
import { DayCounts } from '../../../src/audit/dayCounts'

const MINUTE = 60_000
const DAY = 24 * 60 * MINUTE

describe('DayCounts', () => {
  it('counts the calls of the last 24 hours, to the minute', () => {
    const day = new DayCounts()
    const start = 1_700_000_000_000 - (1_700_000_000_000 % MINUTE)
    day.add(start, true)
    day.add(start + 30_000, false)
    day.add(start + 2 * MINUTE, true)
    expect(day.totals(start + 2 * MINUTE)).toEqual({ total: 3, success: 2, failure: 1 })
    // The first minute leaves the window once all of it is more than a day old.
    expect(day.totals(start + DAY + MINUTE - 1)).toEqual({ total: 3, success: 2, failure: 1 })
    expect(day.totals(start + DAY + MINUTE)).toEqual({ total: 1, success: 1, failure: 0 })
    expect(day.totals(start + 2 * DAY + 3 * MINUTE)).toEqual({ total: 0, success: 0, failure: 0 })
  })

  it('keeps at most a day of minute counters however many calls come, and without a summary asked', () => {
    const day = new DayCounts()
    const start = 1_700_000_000_000
    for (let i = 0; i < 3 * 24 * 60 * 10; i++) day.add(start + i * 6_000, i % 2 === 0)
    expect(day.size).toBeLessThanOrEqual(24 * 60 + 1)
    expect(day.totals(start + (3 * 24 * 60 * 10 - 1) * 6_000).total).toBeGreaterThanOrEqual(24 * 60 * 10)
  })
})
