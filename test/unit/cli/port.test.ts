import { describe, expect, it } from 'vitest'
import { formatUptime } from '../../../cli/commands/status'
import { resolvePort } from '../../../src/config/port'

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

  it.each(['abc', '70000', '-1', '9515.5'])('refuses %s', (value) => {
    expect(() => resolvePort({ flag: value, env: {} })).toThrow(`invalid port "${value}"`)
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
