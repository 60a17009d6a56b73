/**
 * `bridge client add <name> --for <client>` writes into files that belong to other programs and hold
 * other servers' credentials. It must write each client's own format, keep every other server and
 * setting, keep a private backup of the previous bytes, write 0600, carry the client's token (never
 * the auth.json secret), and leave a file it cannot parse exactly as it was. The Claude Desktop entry
 * is then spawned as Claude Desktop would and must reach the daemon.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startDaemon, tempConfigDir, type RunningDaemon } from '../helpers/daemon'
import { runCli } from '../integration/cli/runCli'

const OTHER = { command: 'other-server', args: ['--keep'], env: { OTHER_TOKEN: 'keep-me' } }

interface Case {
  kind: string
  file: (home: string) => string
  serversKey: string
  entry: (port: number, token: string) => unknown
}

const http = (port: number) => `http://127.0.0.1:${port}/mcp`
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` })

const CASES: Case[] = [
  {
    kind: 'claude-code',
    file: (home) => join(home, '.claude.json'),
    serversKey: 'mcpServers',
    entry: (port, token) => ({ type: 'http', url: http(port), headers: bearer(token) }),
  },
  {
    kind: 'cursor',
    file: (home) => join(home, '.cursor', 'mcp.json'),
    serversKey: 'mcpServers',
    entry: (port, token) => ({ url: http(port), headers: bearer(token) }),
  },
  {
    kind: 'vscode',
    file: (home) => join(home, '.config', 'Code', 'User', 'mcp.json'),
    serversKey: 'servers',
    entry: (port, token) => ({ type: 'http', url: http(port), headers: bearer(token) }),
  },
  {
    kind: 'windsurf',
    file: (home) => join(home, '.codeium', 'windsurf', 'mcp_config.json'),
    serversKey: 'mcpServers',
    entry: (port, token) => ({ serverUrl: http(port), headers: bearer(token) }),
  },
  {
    kind: 'claude-desktop',
    file: (home) => join(home, '.config', 'Claude', 'claude_desktop_config.json'),
    serversKey: 'mcpServers',
    entry: (port, token) => ({
      command: process.execPath,
      args: [expect.stringMatching(/dist\/cli\/bridge\.js$/), 'mcp'],
      env: { BRIDGE_CLIENT_TOKEN: token, BRIDGE_PORT: String(port) },
    }),
  },
  {
    kind: 'gemini-cli',
    file: (home) => join(home, '.gemini', 'settings.json'),
    serversKey: 'mcpServers',
    entry: (port, token) => ({ httpUrl: http(port), headers: bearer(token) }),
  },
]

/** A Codex config.toml with a comment, settings, another server and a nested table, all to be kept. */
const CODEX_BEFORE = [
  '# my codex settings',
  'model = "o4"',
  '',
  '[mcp_servers.other]',
  'command = "other-server"',
  'args = ["--keep"]',
  'env = { OTHER_TOKEN = "keep-me" }',
  '',
  '[profiles.fast]',
  'model = "mini"',
  '',
].join('\n')

describe('bridge client add --for', () => {
  let daemon: RunningDaemon
  let home: string
  const dirs: string[] = []
  const cli = (args: string[]) =>
    runCli([...args, '--port', String(daemon.port)], daemon.configDir, {
      HOME: home,
      XDG_CONFIG_HOME: undefined,
      APPDATA: undefined,
      CODEX_HOME: undefined,
    })
  const tokenOf = (name: string) =>
    (
      JSON.parse(readFileSync(join(daemon.configDir, 'clients.json'), 'utf8')) as {
        clients: { name: string; token: string }[]
      }
    ).clients.find((c) => c.name === name)!.token

  beforeAll(async () => {
    daemon = await startDaemon()
    home = tempConfigDir()
    dirs.push(home)
  })
  afterAll(async () => {
    await daemon?.stop()
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
  })

  it.each(CASES)(
    '$kind: merges its own format, keeps other servers and settings, backs up, 0600',
    async (c) => {
      const file = c.file(home)
      mkdirSync(dirname(file), { recursive: true })
      const previous = `${JSON.stringify({ theme: 'dark', [c.serversKey]: { other: OTHER } }, null, 2)}\n`
      writeFileSync(file, previous, { mode: 0o644 })
      const name = `for-${c.kind}`
      const result = await cli(['client', 'add', name, '--for', c.kind])
      expect(result.stderr).toBe('')
      expect(result.code).toBe(0)
      expect(result.stdout).toContain(`added the MCP server "bridge" in`)
      expect(result.stdout).toContain(file)
      const written = JSON.parse(readFileSync(file, 'utf8')) as Record<string, Record<string, unknown>>
      const token = tokenOf(name)
      expect(written).toEqual({
        theme: 'dark',
        [c.serversKey]: { other: OTHER, bridge: c.entry(daemon.port, token) },
      })
      expect(readFileSync(file, 'utf8')).not.toContain(daemon.secret)
      expect(statSync(file).mode & 0o777).toBe(0o600)
      const backups = readdirSync(dirname(file)).filter((f) => f.includes('.bridge-backup-'))
      expect(backups).toHaveLength(1)
      const backup = join(dirname(file), backups[0]!)
      expect(readFileSync(backup, 'utf8')).toBe(previous)
      expect(statSync(backup).mode & 0o777).toBe(0o600)
      expect(result.stdout).toContain(`the previous file is kept as ${backup}`)
      // The token is in the file, not on the terminal.
      expect(result.stdout).not.toContain(token)
    },
  )

  it('codex: adds [mcp_servers.bridge] to config.toml, keeps every other line, backs up, 0600', async () => {
    const file = join(home, '.codex', 'config.toml')
    mkdirSync(dirname(file), { recursive: true })
    writeFileSync(file, CODEX_BEFORE, { mode: 0o644 })
    const result = await cli(['client', 'add', 'for-codex', '--for', 'codex'])
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    const token = tokenOf('for-codex')
    const table = [
      '[mcp_servers.bridge]',
      `url = "${http(daemon.port)}"`,
      `http_headers = { "Authorization" = "Bearer ${token}" }`,
      '',
    ].join('\n')
    expect(readFileSync(file, 'utf8')).toBe(`${CODEX_BEFORE.trimEnd()}\n\n${table}`)
    expect(statSync(file).mode & 0o777).toBe(0o600)
    const backups = readdirSync(dirname(file)).filter((f) => f.includes('.bridge-backup-'))
    expect(backups).toHaveLength(1)
    expect(readFileSync(join(dirname(file), backups[0]!), 'utf8')).toBe(CODEX_BEFORE)
    expect(statSync(join(dirname(file), backups[0]!)).mode & 0o777).toBe(0o600)
    expect(result.stdout).not.toContain(token)

    // Again for another client: bridge's table is replaced in place, nothing else moves.
    const again = await cli(['client', 'add', 'codex-two', '--for', 'codex'])
    expect(again.stdout).toContain('replaced the MCP server "bridge"')
    const text = readFileSync(file, 'utf8')
    expect(text).toContain(`"Bearer ${tokenOf('codex-two')}"`)
    expect(text).not.toContain(token)
    expect(text.match(/\[mcp_servers\.bridge\]/g)).toHaveLength(1)
    expect(text.startsWith(CODEX_BEFORE.trimEnd())).toBe(true)
  })

  it('codex: leaves a config.toml that names bridge another way as it was and shows the table', async () => {
    const freshHome = tempConfigDir()
    dirs.push(freshHome)
    const file = join(freshHome, '.codex', 'config.toml')
    mkdirSync(dirname(file), { recursive: true })
    const before = '[mcp_servers]\nbridge = { url = "http://elsewhere/mcp" }\n'
    writeFileSync(file, before)
    const result = await runCli(
      ['client', 'add', 'codex-inline', '--for', 'codex', '--port', String(daemon.port)],
      daemon.configDir,
      { HOME: freshHome, CODEX_HOME: undefined },
    )
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('left as it is')
    expect(result.stdout).toContain('[mcp_servers.bridge]')
    expect(readFileSync(file, 'utf8')).toBe(before)
  })

  it('adds the configuration for an existing client, with the token it already has', async () => {
    const created = await cli(['client', 'add', 'existing'])
    expect(created.code).toBe(0)
    const token = tokenOf('existing')
    const result = await cli(['client', 'add', 'existing', '--for', 'cursor'])
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('using the existing MCP client "existing" (its token is unchanged)')
    expect(tokenOf('existing')).toBe(token)
    const written = JSON.parse(readFileSync(join(home, '.cursor', 'mcp.json'), 'utf8')) as {
      mcpServers: { bridge: unknown }
    }
    expect(written.mcpServers.bridge).toEqual({ url: http(daemon.port), headers: bearer(token) })
    // Without --for an existing name is still refused: it would otherwise print a second token.
    expect((await cli(['client', 'add', 'existing'])).stderr).toContain('already exists')
  })

  it('doctor counts the Claude Desktop entry it wrote as set up', async () => {
    const doctor = await cli(['doctor'])
    expect(doctor.stdout).toMatch(
      /Claude Desktop: \S+claude_desktop_config\.json is set up for http:\/\/127\.0\.0\.1:\d+\/mcp \(client "for-claude-desktop"\)/,
    )
    expect(doctor.stdout).not.toMatch(/Claude Desktop: .* does not mention/)
    expect(doctor.stdout).toMatch(/Codex: \S+config\.toml is set up/)
    expect(doctor.stdout).toMatch(/Gemini CLI: \S+settings\.json is set up/)
  })

  it('creates a missing file (and its folders) with only bridge in it', async () => {
    const freshHome = tempConfigDir()
    dirs.push(freshHome)
    const result = await runCli(
      ['client', 'add', 'fresh', '--for', 'cursor', '--port', String(daemon.port)],
      daemon.configDir,
      {
        HOME: freshHome,
      },
    )
    expect(result.code).toBe(0)
    const file = join(freshHome, '.cursor', 'mcp.json')
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({
      mcpServers: { bridge: { url: http(daemon.port), headers: bearer(tokenOf('fresh')) } },
    })
  })

  it('leaves a file with comments exactly as it was and shows what to add by hand', async () => {
    const file = join(home, '.cursor', 'mcp.json')
    const commented = '// my servers\n{ "mcpServers": {} }\n'
    writeFileSync(file, commented)
    const result = await cli(['client', 'add', 'commented', '--for', 'cursor'])
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(`${file} is not plain JSON (comments?), so it was left as it is`)
    expect(readFileSync(file, 'utf8')).toBe(commented)
    expect(JSON.parse(result.stdout.slice(result.stdout.indexOf('{')))).toEqual({
      mcpServers: { bridge: { url: http(daemon.port), headers: bearer(tokenOf('commented')) } },
    })
  })

  it('refuses an unknown client kind, a reserved name and a bad name without creating anything', async () => {
    const before = readFileSync(join(daemon.configDir, 'clients.json'), 'utf8')
    expect((await cli(['client', 'add', 'x1', '--for', 'notepad'])).stderr).toContain('--for must be one of')
    expect((await cli(['client', 'add', 'extension'])).stderr).toContain('"extension" is reserved')
    expect((await cli(['client', 'add', '-bad'])).code).toBe(1)
    expect((await cli(['client', 'add', 'Upper'])).stderr).toContain('is not a client name')
    expect(readFileSync(join(daemon.configDir, 'clients.json'), 'utf8')).toBe(before)
  })

  it('the Claude Desktop entry, spawned as Claude Desktop spawns it, reaches the daemon', async () => {
    const file = join(home, '.config', 'Claude', 'claude_desktop_config.json')
    const entry = (
      JSON.parse(readFileSync(file, 'utf8')) as {
        mcpServers: { bridge: { command: string; args: string[]; env: Record<string, string> } }
      }
    ).mcpServers.bridge
    const transport = new StdioClientTransport({
      command: entry.command,
      args: entry.args,
      env: { PATH: process.env.PATH ?? '', HOME: home, ...entry.env },
      stderr: 'pipe',
    })
    const client = new Client({ name: 'desktop', version: '1.0.0' })
    await client.connect(transport)
    try {
      // The relay answered initialize with the daemon's own identity, and tools/list went through.
      expect(client.getServerVersion()?.name).toBe('bridge')
      const { tools } = await client.listTools()
      expect(Array.isArray(tools)).toBe(true)
    } finally {
      await client.close()
    }
  })
})
