/**
 * The data-flow guard's settings from the CLI, without a daemon: `bridge config set flow-guard` for
 * every client and per client, and `bridge client add --reads --writes`, with their refusals.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { tempConfigDir } from '../../helpers/daemon'
import { runCli } from './runCli'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function configDir(): string {
  const dir = tempConfigDir()
  dirs.push(dir)
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ localPlugins: [], permissions: {}, port: 9515 }))
  return dir
}

const fileOf = (dir: string, name: string) =>
  JSON.parse(readFileSync(join(dir, name), 'utf8')) as Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any -- the test reads whatever was written

describe('bridge config set flow-guard', () => {
  it('sets the mode for every client, then for one, and drops the one again with default', async () => {
    const dir = configDir()
    expect((await runCli(['config', 'set', 'flow-guard', 'block'], dir)).code).toBe(0)
    expect((await runCli(['config', 'set', 'flow-guard.mailer', 'off'], dir)).code).toBe(0)
    expect(fileOf(dir, 'config.json').flowGuard).toEqual({ mode: 'block', clients: { mailer: 'off' } })
    expect((await runCli(['config', 'set', 'flow-guard.mailer', 'default'], dir)).code).toBe(0)
    expect(fileOf(dir, 'config.json').flowGuard).toEqual({ mode: 'block', clients: {} })
  })

  it('refuses a mode it does not know and a bad client name, writing nothing', async () => {
    const dir = configDir()
    const wrong = await runCli(['config', 'set', 'flow-guard', 'sometimes'], dir)
    expect(wrong.code).not.toBe(0)
    expect(wrong.stderr).toContain('flow-guard takes ask, block, off')
    expect((await runCli(['config', 'set', 'flow-guard.Bad_Name', 'off'], dir)).code).not.toBe(0)
    expect(fileOf(dir, 'config.json').flowGuard).toBeUndefined()
  })
})

describe('bridge client add --reads --writes', () => {
  it('keeps the origins a client may read and write, as origins', async () => {
    const dir = configDir()
    const added = await runCli(
      [
        'client',
        'add',
        'mailer',
        '--reads',
        'https://mail.example.com/inbox, http://127.0.0.1:4101',
        '--writes',
        'https://mail.example.com',
      ],
      dir,
    )
    expect(added.code).toBe(0)
    expect(added.stdout).toContain('reads only: https://mail.example.com, http://127.0.0.1:4101')
    const [client] = fileOf(dir, 'clients.json').clients as Array<Record<string, unknown>>
    expect(client).toMatchObject({
      name: 'mailer',
      reads: ['https://mail.example.com', 'http://127.0.0.1:4101'],
      writes: ['https://mail.example.com'],
    })
  })

  it('refuses what is not an origin, adding no client', async () => {
    const dir = configDir()
    const refused = await runCli(['client', 'add', 'mailer', '--writes', 'javascript:alert(1)'], dir)
    expect(refused.code).not.toBe(0)
    expect(refused.stderr).toContain('--writes takes origins')
    expect(() => fileOf(dir, 'clients.json')).toThrow()
  })
})
