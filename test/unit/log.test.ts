import { describe, expect, it } from 'vitest'
import { logLevelFromEnv, redact, registerSecret } from '../../src/log'

describe('log redaction', () => {
  it('removes a registered secret wherever it appears', () => {
    const secret = 'c0ffee'.repeat(10) + 'beef'
    registerSecret(secret)
    expect(redact(`token=${secret}; again ${secret}`)).toBe('token=[redacted]; again [redacted]')
  })

  it('removes bearer tokens and 64-hex strings it was not told about', () => {
    expect(redact('Authorization: Bearer abc.def-123')).toBe('Authorization: Bearer [redacted]')
    expect(redact(`secret ${'a1'.repeat(32)} end`)).toBe('secret [redacted] end')
  })

  it('leaves ordinary text alone', () => {
    expect(redact('bridge listening on http://127.0.0.1:9515')).toBe(
      'bridge listening on http://127.0.0.1:9515',
    )
  })
})

describe('logLevelFromEnv', () => {
  it('reads BRIDGE_LOG_LEVEL and falls back to info', () => {
    expect(logLevelFromEnv({ BRIDGE_LOG_LEVEL: 'debug' })).toBe('debug')
    expect(logLevelFromEnv({ BRIDGE_LOG_LEVEL: 'SILENT' })).toBe('silent')
    expect(logLevelFromEnv({ BRIDGE_LOG_LEVEL: 'loud' })).toBe('info')
    expect(logLevelFromEnv({})).toBe('info')
  })
})
