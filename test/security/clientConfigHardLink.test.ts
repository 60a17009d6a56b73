/**
 * A hard link is a second name for one file: planted at an MCP client's config path and pointing at
 * bridge's auth.json, it reads as a plain file of the user's own. The old code merged bridge's entry
 * into it, so auth.json stayed the secret's file and the agent's client read a file that held the
 * secret. `bridge doctor` only reads those files, but waited for ever on a FIFO planted at one. Attacks: a hard link to auth.json at Cursor's and at Codex's path (JSON and TOML), a hard link
 * to clients.json, and a copy of auth.json (one name, but bridge's `secret` key) at Cursor's path.
 */
import {
  copyFileSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { execFileSync } from 'node:child_process'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startDaemon, tempConfigDir, type RunningDaemon } from '../helpers/daemon'
import { runCli } from '../integration/cli/runCli'

describe('bridge client add --for against a hard link or a copy of bridge’s private file', () => {
  let daemon: RunningDaemon
  let authFile: string
  let clientsFile: string
  const dirs: string[] = []
  let count = 0

  const freshHome = (): string => {
    const home = tempConfigDir()
    dirs.push(home)
    return home
  }
  const add = (home: string, kind: 'cursor' | 'codex', name = `linked-${++count}`) =>
    runCli(['client', 'add', name, '--for', kind, '--port', String(daemon.port)], daemon.configDir, {
      HOME: home,
      XDG_CONFIG_HOME: undefined,
      CODEX_HOME: undefined,
    })

  beforeAll(async () => {
    daemon = await startDaemon()
    authFile = join(daemon.configDir, 'extension', 'auth.json')
    clientsFile = join(daemon.configDir, 'clients.json')
  })
  afterAll(async () => {
    await daemon?.stop()
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
  })

  // clients.json: through the existing `default` client, so the add itself leaves clients.json as it is.
  const cases = [
    { kind: 'cursor', path: ['.cursor', 'mcp.json'], target: () => authFile, name: undefined },
    { kind: 'codex', path: ['.codex', 'config.toml'], target: () => authFile, name: undefined },
    { kind: 'cursor', path: ['.cursor', 'mcp.json'], target: () => clientsFile, name: 'default' },
  ] as const
  it.each(cases)(
    'refuses a hard link to a private file at $kind’s path and changes neither name',
    async (c) => {
      const home = freshHome()
      const planted = join(home, ...c.path)
      mkdirSync(dirname(planted), { recursive: true })
      const target = c.target()
      const before = readFileSync(target, 'utf8')
      linkSync(target, planted)
      const links = statSync(target).nlink
      const result = await add(home, c.kind, c.name)
      expect(result.code).toBe(1)
      expect(result.stderr).toContain(`${planted} is a hard link`)
      expect(result.stderr).toContain('left as it is')
      // Still one file with two names, byte for byte as it was; no backup of it was written beside.
      expect(statSync(planted).ino).toBe(statSync(target).ino)
      expect(statSync(target).nlink).toBe(links)
      expect(readFileSync(target, 'utf8')).toBe(before)
      expect(readdirSync(dirname(planted))).toEqual([c.path[1]])
      // What to add by hand holds the client's token, never the secret.
      expect(result.stdout + result.stderr).not.toContain(daemon.secret)
    },
  )

  it('refuses a copy of auth.json (one name, but bridge’s `secret` in it)', async () => {
    const home = freshHome()
    const planted = join(home, '.cursor', 'mcp.json')
    mkdirSync(dirname(planted), { recursive: true })
    copyFileSync(authFile, planted)
    const result = await add(home, 'cursor')
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(`${planted} holds "secret", a key of bridge's private files`)
    expect(readFileSync(planted, 'utf8')).toBe(readFileSync(authFile, 'utf8'))
    expect(readdirSync(dirname(planted))).toEqual(['mcp.json'])
  })

  it('bridge doctor reads a FIFO planted at a client’s path as no file, and finishes', async () => {
    const home = freshHome()
    const planted = join(home, '.cursor', 'mcp.json')
    mkdirSync(dirname(planted), { recursive: true })
    execFileSync('mkfifo', [planted])
    const result = await runCli(['doctor', '--port', String(daemon.port)], daemon.configDir, {
      HOME: home,
      XDG_CONFIG_HOME: undefined,
      CODEX_HOME: undefined,
    })
    expect(result.stdout).toContain(`Cursor: ${planted} does not mention`)
  })

  it('still merges into a plain file of the client’s own', async () => {
    const home = freshHome()
    const cursor = join(home, '.cursor', 'mcp.json')
    mkdirSync(dirname(cursor), { recursive: true })
    writeFileSync(cursor, `${JSON.stringify({ mcpServers: { other: { command: 'other-server' } } })}\n`)
    const result = await add(home, 'cursor')
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    const merged = JSON.parse(readFileSync(cursor, 'utf8')) as { mcpServers: Record<string, unknown> }
    expect(Object.keys(merged.mcpServers).sort()).toEqual(['bridge', 'other'])
  })
})
