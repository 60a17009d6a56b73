import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { attachLogFile, detachLogFile, log, logLevelFromEnv, redact, registerSecret } from '../../src/log'

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

describe('server.log', () => {
  it('appends tagged, redacted lines with mode 0600 and rolls over to server.log.1 past the size limit', () => {
    const dir = mkdtempSync(join(tmpdir(), 'bridge-log-'))
    const path = join(dir, 'server.log')
    try {
      attachLogFile(path, 2_000)
      const logger = log.withTag('plugin:notes')
      logger.warn(`first line Bearer ${'9'.repeat(40)}`)
      const first = readFileSync(path, 'utf8')
      expect(first).toMatch(
        /^\d{4}-\d\d-\d\dT[\d:.]+Z WARN {2}\[plugin:notes\] first line Bearer \[redacted\]\n$/,
      )
      expect(statSync(path).mode & 0o777).toBe(0o600)
      for (let i = 0; i < 14; i++) logger.warn(`line ${i} ${'x'.repeat(100)}`)
      expect(readFileSync(`${path}.1`, 'utf8')).toContain('first line')
      expect(statSync(path).size).toBeLessThan(2_000)
      expect(statSync(`${path}.1`).mode & 0o777).toBe(0o600)
    } finally {
      detachLogFile()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
