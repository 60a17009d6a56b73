const MINUTE_MS = 60_000
const DAY_MINUTES = 24 * 60

/**
 * Calls of the last 24 hours, counted per minute: at most 1,441 small counters, however many calls a
 * day brings (a record per call would keep memory for every call of the day). A call counts until its
 * minute has wholly left the window, so the window is 24 hours to the minute.
 *
 * @example
 *   const day = new DayCounts()
 *   day.add(Date.now(), true)
 *   day.totals(Date.now()) // -> { total: 1, success: 1, failure: 0 }
 */
export class DayCounts {
  private readonly minutes = new Map<number, { total: number; success: number }>()
  /** How many minutes are counted now (at most 1,441). */
  get size(): number {
    return this.minutes.size
  }
  private prunedAt = -1

  add(at: number, success: boolean): void {
    this.prune(at)
    const minute = Math.floor(at / MINUTE_MS)
    let counts = this.minutes.get(minute)
    if (!counts) this.minutes.set(minute, (counts = { total: 0, success: 0 }))
    counts.total++
    if (success) counts.success++
  }

  totals(now: number): { total: number; success: number; failure: number } {
    this.prune(now)
    let total = 0
    let success = 0
    for (const counts of this.minutes.values()) {
      total += counts.total
      success += counts.success
    }
    return { total, success, failure: total - success }
  }

  /** Forgets the minutes that left the window; walks the counters at most once a minute. */
  prune(now: number): void {
    const minute = Math.floor(now / MINUTE_MS)
    if (minute === this.prunedAt) return
    this.prunedAt = minute
    for (const key of this.minutes.keys()) if (key < minute - DAY_MINUTES) this.minutes.delete(key)
  }
}
