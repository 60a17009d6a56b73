import { describe, expect, it } from 'vitest'
import { formatUptime } from '../../../cli/commands/status'
import { checkPort, parsePort, resolvePort } from '../../../src/config/port'

describe('resolvePort', () => {
  it('takes --port, then BRIDGE_PORT, then config.json, then 9515', () => {
    expect(resolvePort({ flag: 9600, env: { BRIDGE_PORT: '9700' }, configPort: 9800 })).toBe(9600)
    expect(resolvePort({ env: { BRIDGE_PORT: '9700' }, configPort: 9800 })).toBe(9700)
    expect(resolvePort({ env: {}, configPort: 9800 })).toBe(9800)
    expect(resolvePort({ env: {} })).toBe(9515)
  })

  it('ignores PORT and refuses 0 for client commands', () => {
    expect(resolvePort({ env: { PORT: '9700' } })).toBe(9515)
    expect(() => resolvePort({ flag: 0, env: {} })).toThrow('invalid port "0" (expected 1-65535)')
  })

  it('lets `start` use PORT after BRIDGE_PORT, and port 0', () => {
    expect(resolvePort({ env: { PORT: '0' }, configPort: 9800, forServer: true })).toBe(0)
    expect(resolvePort({ env: { BRIDGE_PORT: '9700', PORT: '0' }, forServer: true })).toBe(9700)
  })

  it.each(['abc', '70000', '-1', '9515.5', '1e3', '0x50', '+80', ' 9515', '9515 ', '', '0b1010', '٣'])(
    'refuses %j, naming it and the range',
    (value) => {
      expect(() => parsePort(value)).toThrow(`invalid port "${value}" (expected 1-65535)`)
      expect(() => parsePort(value, { listen: true })).toThrow(
        `invalid port "${value}" (expected 0-65535; 0 picks a free port)`,
      )
    },
  )

  it('reads the same rule from flags, BRIDGE_PORT and PORT', () => {
    expect(() => resolvePort({ flag: '1e3', env: {} })).toThrow('invalid port "1e3" (expected 1-65535)')
    expect(() => resolvePort({ env: { BRIDGE_PORT: '0x50' } })).toThrow('invalid port "0x50"')
    expect(() => resolvePort({ env: { PORT: '1e3' }, forServer: true })).toThrow(
      'invalid port "1e3" (expected 0-65535; 0 picks a free port)',
    )
    expect(resolvePort({ env: { BRIDGE_PORT: '09600' } })).toBe(9600)
  })

  it('takes numbers (config.json) by the same range, and 0 only where bridge listens', () => {
    expect(checkPort(9515)).toEqual({ ok: true, value: 9515 })
    expect(checkPort(0)).toEqual({ ok: false, message: 'invalid port "0" (expected 1-65535)' })
    expect(checkPort(0, { listen: true })).toEqual({ ok: true, value: 0 })
    expect(checkPort(65536).ok).toBe(false)
    expect(checkPort(80.5).ok).toBe(false)
    expect(checkPort(null)).toEqual({ ok: false, message: 'invalid port "null" (expected 1-65535)' })
  })
})

describe('formatUptime', () => {
  it.each([
    [0, '0s'],
    [59, '59s'],
    [61, '1m 1s'],
    [3600, '1h 0m 0s'],
    [90061, '1d 1h 1m 1s'],
  ])('%i s reads %s', (seconds, text) => {
    expect(formatUptime(seconds)).toBe(text)
  })
})
