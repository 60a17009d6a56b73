import { readFileSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { tempConfigDir } from '../../helpers/daemon'
import { runCli } from './runCli'

// `bridge site` with no daemon running: what it writes to config.json and what it refuses.
describe('bridge site without a daemon', () => {
  let dir: string
  // A port nothing listens on: the CLI finds no daemon there.
  const env = { BRIDGE_PORT: '9' }
  beforeAll(() => {
    dir = tempConfigDir()
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  const config = () =>
    JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as { sites?: Record<string, unknown> }

  it('turns a site on and off in config.json, written private', async () => {
    const on = await runCli(['site', 'set', 'https://todo.example/', 'ask'], dir, env)
    expect(on.code).toBe(0)
    expect(on.stdout).toContain('https://todo.example = ask')
    expect(config().sites).toEqual({ 'https://todo.example': { permission: 'ask' } })
    expect(statSync(join(dir, 'config.json')).mode & 0o777).toBe(0o600)
    const list = await runCli(['site', 'list'], dir, env)
    expect(list.stdout).toContain('https://todo.example  ask')
    const off = await runCli(['site', 'set', 'https://todo.example', 'off'], dir, env)
    expect(off.code).toBe(0)
    expect(config().sites).toEqual({ 'https://todo.example': { permission: 'off' } })
  })

  it('sets a tool off without seeing it, but refuses ask or auto for a tool it cannot see', async () => {
    const off = await runCli(['site', 'set', 'https://todo.example', 'add_todo', 'off'], dir, env)
    expect(off.code).toBe(0)
    expect(config().sites).toEqual({
      'https://todo.example': { permission: 'off', tools: { add_todo: { permission: 'off' } } },
    })
    const auto = await runCli(['site', 'set', 'https://todo.example', 'add_todo', 'auto'], dir, env)
    expect(auto.code).toBe(1)
    expect(auto.stderr).toMatch(/the daemon is not running: a tool can be set to auto only while bridge sees/)
    expect(config().sites).toEqual({
      'https://todo.example': { permission: 'off', tools: { add_todo: { permission: 'off' } } },
    })
  })

  it('refuses what is not an origin or a permission, and leaves the file as it was', async () => {
    const before = readFileSync(join(dir, 'config.json'), 'utf8')
    for (const args of [
      ['https://todo.example/path', 'ask'],
      ['file:///etc', 'ask'],
      ['todo.example', 'ask'],
      ['https://todo.example', 'always'],
    ]) {
      const result = await runCli(['site', 'set', ...args], dir, env)
      expect(result.code).toBe(1)
      expect(result.stderr).toMatch(/^bridge: (".*" is not an origin|permission must be off, ask or auto)/)
    }
    expect(readFileSync(join(dir, 'config.json'), 'utf8')).toBe(before)
  })
})
