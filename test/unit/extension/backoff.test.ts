import { describe, expect, it } from 'vitest'
import { reconnectDelayMs } from '../../../extension/lib/backoff'

describe('reconnect backoff', () => {
  it('waits 1, 2, 4, 8, 16 s and then 30 s for every later attempt', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 50].map(reconnectDelayMs)).toEqual([
      1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000,
    ])
  })
})
