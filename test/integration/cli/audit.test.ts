/**
 * `bridge audit`: real tool calls through MCP, read back from the running daemon and from the disk
 * log (--file, including audit.log.1), with filters, --json and the refusals.
 */
import { appendFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AuditEntry } from '../../../src/audit/auditEntry'
import { tempConfigDir } from '../../helpers/daemon'
import { FakeExtension } from '../../helpers/fakeExtension'
import { connectMcp, type McpConnection } from '../../helpers/mcpClient'
import { startFixture, type Fixture } from '../toolcall/fixture'
import { runCli } from './runCli'

const permissions = { browser: { tools: { browser_list_tabs: 'auto' } } }

describe('bridge audit', () => {
  let fx: Fixture
  let mcp: McpConnection
  const dirs: string[] = []
  beforeAll(async () => {
    fx = await startFixture('node', { permissions })
    mcp = await connectMcp(fx.daemon)
    const ext = await FakeExtension.connect(fx.daemon, { autoAnswer: () => ({ tabs: [] }) })
    for (let i = 0; i < 3; i++) await mcp.client.callTool({ name: 'browser_list_tabs', arguments: {} })
    await mcp.client.callTool({ name: 'browser_close_tab', arguments: { tabId: 1 } })
    await ext.close()
  })
  afterAll(async () => {
    await mcp?.close()
    await fx?.stop()
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
  })
  const cli = (args: string[], env: Record<string, string> = {}) =>
    runCli(['audit', ...args], fx.daemon.configDir, { BRIDGE_PORT: String(fx.daemon.port), ...env })

  it('shows a table of the daemon’s entries, newest first, failures with their code', async () => {
    const result = await cli([])
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    const lines = result.stdout.trimEnd().split('\n')
    expect(lines[0]).toMatch(/^TIME\s+RESULT\s+DURATION\s+CLIENT\s+TOOL\s+ERROR$/)
    expect(lines).toHaveLength(5)
    expect(lines[1]).toMatch(
      /^\d{4}-\d\d-\d\dT\S+Z\s+FAILED\s+\d+ ms\s+cli\s+browser_close_tab\s+permission_off: this tool is off/,
    )
    expect(lines[2]).toMatch(/\s+ok\s+\d+ ms\s+cli\s+browser_list_tabs$/)
    // The daemon filters by client (GET /audit?client=): the MCP calls here used the secret, as the CLI.
    const mine = JSON.parse((await cli(['--json', '--client', 'cli'])).stdout) as AuditEntry[]
    expect(mine.map((e) => e.client)).toEqual(['cli', 'cli', 'cli', 'cli'])
    expect(JSON.parse((await cli(['--json', '--client', 'someone-else'])).stdout)).toEqual([])
  })

  it('--json gives failed entries their code, category and message; --limit and --tool filter', async () => {
    const failed = JSON.parse((await cli(['--json', '--limit', '1'])).stdout) as AuditEntry[]
    expect(failed).toHaveLength(1)
    expect(failed[0]).toMatchObject({
      tool: 'browser_close_tab',
      plugin: 'browser',
      success: false,
      error: {
        code: 'permission_off',
        category: 'permission',
        message: expect.stringMatching(/this tool is off/),
      },
    })
    const listTabs = JSON.parse((await cli(['--json', '--tool', 'browser_list_tabs'])).stdout) as AuditEntry[]
    expect(listTabs.map((e) => e.tool)).toEqual([
      'browser_list_tabs',
      'browser_list_tabs',
      'browser_list_tabs',
    ])
    const none = await cli(['--plugin', 'notes'])
    expect(none.stdout).toBe('no audit entries match\n')
    const recent = JSON.parse((await cli(['--json', '--since', '1h'])).stdout) as AuditEntry[]
    expect(recent).toHaveLength(4)
  })

  it('--file reads the disk log, with audit.log.1 before audit.log, and --since cuts old entries', async () => {
    const fromFile = JSON.parse(
      (await cli(['--file', '--json'], { BRIDGE_PORT: '1' })).stdout,
    ) as AuditEntry[]
    expect(fromFile.map((e) => e.tool)).toEqual([
      'browser_close_tab',
      'browser_list_tabs',
      'browser_list_tabs',
      'browser_list_tabs',
    ])
    const dir = tempConfigDir()
    dirs.push(dir)
    const entry = (tool: string, at: Date, success = true) =>
      `${JSON.stringify({ timestamp: at.toISOString(), tool, plugin: 'notes', success, durationMs: 5 })}\n`
    const old = new Date(Date.now() - 3 * 86_400_000)
    writeFileSync(join(dir, 'audit.log.1'), entry('notes_oldest', old))
    writeFileSync(join(dir, 'audit.log'), entry('notes_middle', new Date(Date.now() - 3_600_000)))
    appendFileSync(join(dir, 'audit.log'), 'not json\n')
    appendFileSync(join(dir, 'audit.log'), entry('notes_newest', new Date(), false))
    const all = await runCli(['audit', '--file', '--json'], dir)
    expect((JSON.parse(all.stdout) as AuditEntry[]).map((e) => e.tool)).toEqual([
      'notes_newest',
      'notes_middle',
      'notes_oldest',
    ])
    expect(all.stderr).toContain('skipped 1 unreadable line(s)')
    const lastDay = await runCli(['audit', '--file', '--json', '--since', '1d'], dir)
    expect((JSON.parse(lastDay.stdout) as AuditEntry[]).map((e) => e.tool)).toEqual([
      'notes_newest',
      'notes_middle',
    ])
    const base = await runCli(['audit', '--file', '--json', '--plugin', 'notes', '--tool', 'oldest'], dir)
    expect((JSON.parse(base.stdout) as AuditEntry[]).map((e) => e.tool)).toEqual(['notes_oldest'])
  })

  it('--client keeps one client’s calls, and the table shows each call’s client, control characters made visible', async () => {
    const dir = tempConfigDir()
    dirs.push(dir)
    const entry = (tool: string, client: string | undefined, error?: string) =>
      `${JSON.stringify({
        timestamp: new Date().toISOString(),
        tool,
        plugin: 'notes',
        ...(client === undefined ? {} : { client }),
        success: error === undefined,
        durationMs: 5,
        ...(error === undefined ? {} : { error: { code: 'tool_error', message: error } }),
      })}\n`
    writeFileSync(
      join(dir, 'audit.log'),
      entry('notes_a', 'research-agent') +
        entry('notes_b', 'cli') +
        entry('notes_c', undefined) +
        entry('notes_d', 'research-agent', 'page said \u001b[2J\u001b[31mALL GOOD\u202e'),
    )
    const mine = await runCli(['audit', '--file', '--json', '--client', 'research-agent'], dir)
    expect((JSON.parse(mine.stdout) as AuditEntry[]).map((e) => e.tool)).toEqual(['notes_d', 'notes_a'])
    const table = (await runCli(['audit', '--file'], dir)).stdout.trimEnd().split('\n')
    expect(table[0]).toMatch(/^TIME\s+RESULT\s+DURATION\s+CLIENT\s+TOOL\s+ERROR$/)
    expect(table[1]).toMatch(
      /FAILED\s+5 ms\s+research-agent\s+notes_d\s+tool_error: page said ⟨U\+001B⟩\[2J⟨U\+001B⟩\[31mALL GOOD⟨U\+202E⟩$/,
    )
    expect(table[2]).toMatch(/ok\s+5 ms\s+-\s+notes_c$/)
    expect(table[3]).toMatch(/ok\s+5 ms\s+cli\s+notes_b$/)
    expect(table.join('\n')).not.toContain('\u001b')
    expect(table.join('\n')).not.toContain('\u202e')
  })

  it('refuses a bad --since or --limit, and explains a missing daemon or log', async () => {
    const since = await cli(['--since', '10y'])
    expect(since.code).toBe(1)
    expect(since.stderr).toContain(
      '--since must be a number and a unit s, m, h or d, like 30m or 2d (got "10y")',
    )
    for (const limit of ['0', '501', 'ten']) {
      const result = await cli(['--limit', limit])
      expect(result.code).toBe(1)
      expect(result.stderr).toContain(`--limit must be an integer from 1 to 500 (got "${limit}")`)
    }
    // A config folder no daemon holds (the test daemon's own folder is found through its lock).
    const empty = tempConfigDir()
    dirs.push(empty)
    mkdirSync(join(empty, 'extension'))
    const noDaemon = await runCli(['audit'], empty, { BRIDGE_PORT: '1' })
    expect(noDaemon.code).toBe(1)
    expect(noDaemon.stderr).toContain('`bridge audit --file` reads the log on disk')
    const noLog = await runCli(['audit', '--file'], empty)
    expect(noLog.code).toBe(1)
    expect(noLog.stderr).toContain(`no audit log at ${join(empty, 'audit.log')}`)
  })
})
