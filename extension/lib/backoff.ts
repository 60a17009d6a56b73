import { RECONNECT_BACKOFF_MAX_MS, RECONNECT_BACKOFF_START_MS } from '../../src/protocol/constants'

/** Delay before reconnect attempt `attempt` (0-based): 1 s, 2 s, 4 s, 8 s ... capped at 30 s. */
export function reconnectDelayMs(attempt: number): number {
  const exp = Math.min(Math.max(0, Math.floor(attempt)), 16)
  return Math.min(RECONNECT_BACKOFF_START_MS * 2 ** exp, RECONNECT_BACKOFF_MAX_MS)
}
