/**
 * `bridge client add|list|show` without a daemon: what each prints, and that tokens appear only where
 * asked for (add once, show --show-secret) and never in list.
 */
import { readFileSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { tempConfigDir } from '../../helpers/daemon'
import { runCli } from './runCli'

describe('bridge client', () => {
  const dir = tempConfigDir()
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  const cli = (args: string[]) => runCli(args, dir, { BRIDGE_PORT: '9777' })
  const tokens = () =>
    (
      JSON.parse(readFileSync(join(dir, 'clients.json'), 'utf8')) as {
        clients: { name: string; token: string }[]
      }
    ).clients

  it("add prints the client's MCP configuration once, with its own token", async () => {
    const result = await cli(['client', 'add', 'laptop'])
    expect(result.code).toBe(0)
    const token = tokens().find((c) => c.name === 'laptop')!.token
    expect(token).toMatch(/^[0-9a-f]{64}$/)
    expect(statSync(join(dir, 'clients.json')).mode & 0o777).toBe(0o600)
    const block = JSON.parse(result.stdout.slice(result.stdout.indexOf('{'))) as unknown
    expect(block).toEqual({
      mcpServers: {
        bridge: {
          type: 'http',
          url: 'http://127.0.0.1:9777/mcp',
          headers: { Authorization: `Bearer ${token}` },
        },
      },
    })
  })

  it('add --json prints name, token, creation date and configuration', async () => {
    const result = await cli(['client', 'add', 'ci-bot', '--json'])
    const body = JSON.parse(result.stdout) as { name: string; token: string; createdAt: string }
    expect(body).toMatchObject({ name: 'ci-bot', token: tokens().find((c) => c.name === 'ci-bot')!.token })
    expect(Date.parse(body.createdAt)).not.toBeNaN()
  })

  it('list shows names and dates, never a token', async () => {
    const human = await cli(['client', 'list'])
    const json = JSON.parse((await cli(['client', 'list', '--json'])).stdout) as { name: string }[]
    expect(json.map((c) => c.name)).toEqual(['laptop', 'ci-bot'])
    expect(human.stdout).toMatch(/^laptop\s+created /m)
    for (const { token } of tokens()) {
      expect(human.stdout).not.toContain(token)
      expect(JSON.stringify(json)).not.toContain(token)
    }
  })

  it('show truncates the token unless --show-secret, and names a missing client', async () => {
    const token = tokens().find((c) => c.name === 'laptop')!.token
    const plain = await cli(['client', 'show', 'laptop'])
    expect(plain.stdout).toContain(`token    ${token.slice(0, 8)}… (truncated; --show-secret prints it)`)
    expect(plain.stdout).not.toContain(token)
    const full = await cli(['client', 'show', 'laptop', '--show-secret'])
    expect(full.stdout).toContain(`token    ${token}`)
    expect(full.stdout).toContain(`"Authorization": "Bearer ${token}"`)
    const missing = await cli(['client', 'show', 'nobody'])
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain('no MCP client named "nobody"')
  })
})
