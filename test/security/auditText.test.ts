// An agent writes into the audit trail: the tool name it asks for and the arguments a refusal quotes.
// Attack: names and arguments full of bidi overrides, zero-width characters and line separators, so
// that `cat audit.log`, an editor or `bridge audit --json` shows the user another tool than the one
// called. Every such character must leave as a \u escape (the same value for any JSON reader).
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startDaemon, type RunningDaemon } from '../helpers/daemon'
import { connectMcp, type McpConnection } from '../helpers/mcpClient'
import { runCli } from '../integration/cli/runCli'

// Right-to-left override, zero-width space, word joiner, line and paragraph separators, a tag
// character (astral), the byte-order mark, the soft hyphen and a C1 control.
const HIDDEN = ['\u202E', '\u200B', '\u2060', '\u2028', '\u2029', '\u{E0041}', '\uFEFF', '\u00AD', '\u0085']
const RAW = /[\u007F-\u009F\p{Cf}\u2028\u2029]/u
const TOOL = `browser_list_tabs${HIDDEN.join('')}exe.txt`

describe('format characters in the audit trail', () => {
  let daemon: RunningDaemon
  let mcp: McpConnection
  beforeAll(async () => {
    daemon = await startDaemon()
    mcp = await connectMcp(daemon)
    await mcp.client.callTool({ name: TOOL, arguments: { note: `gpj.${HIDDEN.join('')}` } })
  })
  afterAll(async () => {
    await mcp?.close()
    await daemon?.stop()
  })

  it('writes audit.log with every format and separator character escaped, and the same value when parsed', async () => {
    const file = join(daemon.configDir, 'audit.log')
    await expect.poll(() => readFileSync(file, 'utf8'), { timeout: 10_000 }).toContain('exe.txt')
    const text = readFileSync(file, 'utf8')
    expect(text).not.toMatch(RAW)
    expect(text).toContain('\\u202e\\u200b\\u2060\\u2028\\u2029\\udb40\\udc41\\ufeff\\u00ad\\u0085')
    const lines = text.trim().split('\n')
    expect(lines).toHaveLength(1)
    expect((JSON.parse(lines[0]!) as { tool: string }).tool).toBe(TOOL)
  })

  it('prints bridge audit --json and answers GET /audit with them escaped too', async () => {
    const result = await runCli(['audit', '--json', '--port', String(daemon.port)], daemon.configDir)
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('exe.txt')
    expect(result.stdout).not.toMatch(RAW)
    expect((JSON.parse(result.stdout) as Array<{ tool: string }>)[0]?.tool).toBe(TOOL)
    const fromFile = await runCli(['audit', '--json', '--file'], daemon.configDir)
    expect(fromFile.stdout).not.toMatch(RAW)
    expect((JSON.parse(fromFile.stdout) as Array<{ tool: string }>)[0]?.tool).toBe(TOOL)
    const body = await (await daemon.fetch('/audit')).text()
    expect(body).not.toMatch(RAW)
    expect((JSON.parse(body) as Array<{ tool: string }>)[0]?.tool).toBe(TOOL)
  })

  it('shows them as visible markers in the bridge audit table', async () => {
    const result = await runCli(['audit', '--port', String(daemon.port)], daemon.configDir)
    expect(result.code).toBe(0)
    expect(result.stdout).not.toMatch(RAW)
    expect(result.stdout).toContain('browser_list_tabs⟨U+202E⟩⟨U+200B⟩⟨U+2060⟩')
  })
})
