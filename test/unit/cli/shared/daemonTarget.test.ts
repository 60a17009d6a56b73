import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { daemonPort, daemonTarget } from '../../../../cli/shared/daemonTarget'

const SECRET = 'ab'.repeat(32)
let dir: string

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bridge-target-'))
  mkdirSync(join(dir, 'extension'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

describe('daemonTarget', () => {
  it('takes the port from --port, then BRIDGE_PORT, then config.json, then 9515', () => {
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ port: 9800 }))
    expect(daemonPort(9600, { configDir: dir, env: { BRIDGE_PORT: '9700' } }).port).toBe(9600)
    expect(daemonPort(undefined, { configDir: dir, env: { BRIDGE_PORT: '9700' } }).port).toBe(9700)
    expect(daemonPort(undefined, { configDir: dir, env: {} }).port).toBe(9800)
    rmSync(join(dir, 'config.json'))
    expect(daemonPort(undefined, { configDir: dir, env: {} }).port).toBe(9515)
  })

  it('reads the secret from auth.json, and null when there is none yet', () => {
    expect(daemonTarget(undefined, { configDir: dir, env: {} }).secret).toBeNull()
    writeFileSync(join(dir, 'extension', 'auth.json'), JSON.stringify({ secret: SECRET }))
    expect(daemonTarget(undefined, { configDir: dir, env: {} })).toMatchObject({ port: 9515, secret: SECRET })
  })

  it('fails on a broken config.json unless told to fall back to the default port', () => {
    writeFileSync(join(dir, 'config.json'), '{ not json')
    expect(() => daemonPort(undefined, { configDir: dir, env: {} })).toThrow('config.json')
    expect(daemonPort(undefined, { configDir: dir, env: {}, brokenConfig: 'ignore' }).port).toBe(9515)
  })

  it('fails on a broken auth.json and on an invalid port flag', () => {
    writeFileSync(join(dir, 'extension', 'auth.json'), '{ "secret": 1 }')
    expect(() => daemonTarget(undefined, { configDir: dir, env: {} })).toThrow('auth.json')
    expect(() => daemonTarget('abc', { configDir: dir, env: {} })).toThrow('invalid port "abc"')
  })
})
