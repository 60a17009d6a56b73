/**
 * Sliding-window rate limiter: at most `limit` hits in any `windowMs` span, per key. Pure apart
 * from the injected clock, so tests drive time directly.
 *
 * @example
 *   const admin = createRateLimiter({ limit: ADMIN_RATE_LIMIT_PER_MIN })
 *   if (!admin.take()) return rateLimitedResponse()
 */
import { RATE_LIMIT_WINDOW_MS } from '../protocol/constants'

export interface RateLimiter {
  /** Records a hit and returns true, or returns false (recording nothing) when the key is over its limit. */
  take(key?: string): boolean
  /** How long until the key may take again: 0 when it may now, else when its oldest hit leaves the window. */
  freesInMs(key?: string): number
}

export interface RateLimiterOptions {
  limit: number
  windowMs?: number
  now?: () => number
}

export function createRateLimiter({
  limit,
  windowMs = RATE_LIMIT_WINDOW_MS,
  now = Date.now,
}: RateLimiterOptions): RateLimiter {
  const hits = new Map<string, number[]>()
  return {
    take(key = 'all') {
      const at = now()
      const recent = (hits.get(key) ?? []).filter((t) => t > at - windowMs)
      if (recent.length >= limit) {
        hits.set(key, recent)
        return false
      }
      recent.push(at)
      hits.set(key, recent)
      return true
    },
    freesInMs(key = 'all') {
      const at = now()
      const recent = (hits.get(key) ?? []).filter((t) => t > at - windowMs)
      return recent.length < limit ? 0 : recent[recent.length - limit]! + windowMs - at
    },
  }
}
