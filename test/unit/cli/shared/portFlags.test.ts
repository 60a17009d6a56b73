import { describe, expect, it } from 'vitest'
import { portFlagsProblem } from '../../../../cli/shared/portFlags'

const LISTENING = { start: ['--port'], demo: ['--site-port'] }

describe('portFlagsProblem', () => {
  it('checks the text as typed, which the argument parser would turn into a number', () => {
    expect(portFlagsProblem(['status', '--port', '1e3'], LISTENING)).toBe(
      'invalid port "1e3" (expected 1-65535)',
    )
    expect(portFlagsProblem(['status', '--port=0x50'], LISTENING)).toBe(
      'invalid port "0x50" (expected 1-65535)',
    )
    expect(portFlagsProblem(['--port', '', 'config', 'show'], LISTENING)).toBe(
      'invalid port "" (expected 1-65535)',
    )
    expect(portFlagsProblem(['config', 'show', '--port=-1'], LISTENING)).toBe(
      'invalid port "-1" (expected 1-65535)',
    )
  })

  it('accepts 0 only for the port a command listens on itself', () => {
    expect(portFlagsProblem(['start', '--port', '0'], LISTENING)).toBeUndefined()
    expect(portFlagsProblem(['--port', '0', 'start'], LISTENING)).toBeUndefined()
    expect(portFlagsProblem(['demo', '--site-port', '0'], LISTENING)).toBeUndefined()
    expect(portFlagsProblem(['status', '--port', '0'], LISTENING)).toBe('invalid port "0" (expected 1-65535)')
    expect(portFlagsProblem(['demo', '--port', '0'], LISTENING)).toBe('invalid port "0" (expected 1-65535)')
    expect(portFlagsProblem(['demo', '--site-port', '1e3'], LISTENING)).toBe(
      '--site-port: invalid port "1e3" (expected 0-65535; 0 picks a free port)',
    )
    expect(portFlagsProblem(['start', '--port', '70000'], LISTENING)).toBe(
      'invalid port "70000" (expected 0-65535; 0 picks a free port)',
    )
  })

  it('passes good ports, a flag without a value (for the parser to report) and words after --', () => {
    expect(portFlagsProblem(['status', '--port', '9515'], LISTENING)).toBeUndefined()
    expect(portFlagsProblem(['status', '--port'], LISTENING)).toBeUndefined()
    expect(portFlagsProblem(['workflow', 'run', 'x', '--', '--port', 'x'], LISTENING)).toBeUndefined()
    expect(portFlagsProblem(['constructor', '--port', '0'], LISTENING)).toBe(
      'invalid port "0" (expected 1-65535)',
    )
  })
})
