/**
 * `bridge client approvals <name> on|off`: the per-client setting for approvals shown in the client,
 * off by default, written to clients.json (0600) and shown by list and show; bad input changes nothing.
 */
import { readFileSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { tempConfigDir } from '../../helpers/daemon'
import { runCli } from './runCli'

describe('bridge client approvals', () => {
  const dir = tempConfigDir()
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  const cli = (args: string[]) => runCli(args, dir, { BRIDGE_PORT: '9777' })
  const file = () => readFileSync(join(dir, 'clients.json'), 'utf8')
  const entry = (name: string) =>
    (JSON.parse(file()) as { clients: { name: string; approvalsInClient?: boolean }[] }).clients.find(
      (c) => c.name === name,
    )

  it('is off for a new client, turns on and off, and says what it trusts', async () => {
    expect((await cli(['client', 'add', 'desk'])).code).toBe(0)
    expect(entry('desk')?.approvalsInClient).toBeUndefined()
    const on = await cli(['client', 'approvals', 'desk', 'on'])
    expect(on.code).toBe(0)
    expect(on.stdout).toContain('it could answer for you')
    expect(entry('desk')?.approvalsInClient).toBe(true)
    expect(statSync(join(dir, 'clients.json')).mode & 0o777).toBe(0o600)
    expect((await cli(['client', 'list'])).stdout).toMatch(/desk +created .* approvals in the client/)
    expect(JSON.parse((await cli(['client', 'show', 'desk', '--json'])).stdout)).toMatchObject({
      name: 'desk',
      approvalsInClient: true,
    })
    const off = await cli(['client', 'approvals', 'desk', 'off'])
    expect(off.stdout).toContain('asked in the side panel only')
    expect(entry('desk')?.approvalsInClient).toBeUndefined()
  })

  it('refuses an unknown client or a value other than on and off, changing nothing', async () => {
    const before = file()
    const unknown = await cli(['client', 'approvals', 'nobody', 'on'])
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain('no MCP client named "nobody"')
    const bad = await cli(['client', 'approvals', 'desk', 'yes'])
    expect(bad.code).toBe(1)
    expect(bad.stderr).toContain('approvals takes on or off (got "yes")')
    expect(file()).toBe(before)
  })
})
