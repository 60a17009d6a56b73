/**
 * Claude Code (pinned, scripts/testedClients) against the real daemon on both engines, as a user
 * sets it up: `bridge client add <name> --for claude-code` writes bridge's entry (an HTTP server with
 * the client's token header) into Claude Code's user config, or the user adds it with `claude mcp
 * add --transport http ... --header`; `claude mcp list` then checks each server and says it is
 * connected. No API key is needed for that check. Claude Code runs with a home folder of its own,
 * so the user's real ~/.claude.json is never read or written.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ENGINES, startDaemon, type RunningDaemon } from '../../helpers/daemon'
import {
  isolatedHome,
  runTestedClient,
  testedClients,
  type IsolatedHome,
  type TestedClients,
} from '../../helpers/testedClients'
import { runCli } from '../cli/runCli'

describe.each(ENGINES)('Claude Code’s claude mcp list against bridge (%s engine)', (engine) => {
  let daemon: RunningDaemon
  let clients: TestedClients
  let home: IsolatedHome

  beforeAll(async () => {
    ;[clients, daemon] = await Promise.all([testedClients(), startDaemon({ engine })])
    home = isolatedHome()
  }, 600_000)
  afterAll(async () => {
    await daemon?.stop()
    home?.remove()
  })

  const claude = (...args: string[]) => runTestedClient(process.execPath, [clients.claude, ...args], home)
  const bridge = (...args: string[]) =>
    runCli([...args, '--port', String(daemon.port)], daemon.configDir, { HOME: home.dir })
  const mcpUrl = () => `${daemon.url}/mcp`

  it('shows bridge connected once bridge client add --for claude-code has written its entry', async () => {
    const added = await bridge('client', 'add', 'claude-code', '--for', 'claude-code')
    expect(added.code, added.stderr).toBe(0)
    expect(added.stdout).toContain(`in Claude Code's ${join(home.dir, '.claude.json')}`)
    const written = JSON.parse(readFileSync(join(home.dir, '.claude.json'), 'utf8')) as {
      mcpServers: Record<string, { type: string; url: string; headers: Record<string, string> }>
    }
    expect(written.mcpServers.bridge).toMatchObject({ type: 'http', url: mcpUrl() })
    expect(written.mcpServers.bridge?.headers.Authorization).toMatch(/^Bearer [0-9a-f]{64}$/)

    const listed = await claude('mcp', 'list')
    expect(listed.code, listed.stderr).toBe(0)
    expect(listed.stdout).toContain(`bridge: ${mcpUrl()} (HTTP) - ✔ Connected`)
  })

  it('shows bridge connected when added by hand with claude mcp add and the token header', async () => {
    const added = await bridge('client', 'add', 'claude-by-hand', '--json')
    expect(added.code, added.stderr).toBe(0)
    const { token } = JSON.parse(added.stdout) as { token: string }
    const configured = await claude(
      'mcp',
      'add',
      '--transport',
      'http',
      '--scope',
      'user',
      'bridge-by-hand',
      mcpUrl(),
      '--header',
      `Authorization: Bearer ${token}`,
    )
    expect(configured.code, configured.stderr).toBe(0)
    const listed = await claude('mcp', 'list')
    expect(listed.stdout).toContain(`bridge-by-hand: ${mcpUrl()} (HTTP) - ✔ Connected`)
    expect(listed.stdout).toContain(`bridge: ${mcpUrl()} (HTTP) - ✔ Connected`)
  })

  it('shows the failure, with the daemon’s own answer, once the client is removed', async () => {
    const removed = await bridge('client', 'remove', 'claude-code', '--confirm')
    expect(removed.code, removed.stderr).toBe(0)
    const listed = await claude('mcp', 'list')
    const line = listed.stdout.split('\n').find((text) => text.startsWith('bridge: '))
    expect(line).toContain('✘ Failed to connect')
    expect(line).toContain('HTTP 401')
    expect(line).toContain('a valid bearer token is required')
    // The other client's token still works.
    expect(listed.stdout).toContain(`bridge-by-hand: ${mcpUrl()} (HTTP) - ✔ Connected`)
  })
})
