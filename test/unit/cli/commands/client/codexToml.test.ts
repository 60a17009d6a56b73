import { describe, expect, it } from 'vitest'
import { codexTable, mergeCodexTable, tomlString } from '../../../../../cli/commands/client/codexToml'

const table = codexTable('bridge', 'http://127.0.0.1:9515/mcp', 'abc')

describe('codexToml', () => {
  it('writes a table Codex reads: url and the Authorization header in http_headers', () => {
    expect(table).toBe(
      '[mcp_servers.bridge]\nurl = "http://127.0.0.1:9515/mcp"\nhttp_headers = { "Authorization" = "Bearer abc" }\n',
    )
    expect(tomlString('a"b\\c\nd\u0001')).toBe('"a\\"b\\\\c\\nd\\u0001"')
  })

  it("replaces bridge's table and its sub-tables in place, keeping every other line", () => {
    const before = [
      'model = "o4"',
      '[mcp_servers."bridge"]',
      'url = "http://old/mcp"',
      '[mcp_servers.bridge.env]',
      'X = "1"',
      '[mcp_servers.other]',
      'command = "x"',
      '',
    ].join('\n')
    const merged = mergeCodexTable(before, 'bridge', table)
    expect(merged).toEqual({
      ok: true,
      replaced: true,
      text: [
        'model = "o4"',
        ...table.trimEnd().split('\n'),
        '',
        '[mcp_servers.other]',
        'command = "x"',
        '',
      ].join('\n'),
    })
  })

  it('appends to a file without it, and writes a new file as the table alone', () => {
    expect(mergeCodexTable('model = "o4"\n', 'bridge', table)).toEqual({
      ok: true,
      replaced: false,
      text: `model = "o4"\n\n${table}`,
    })
    expect(mergeCodexTable('', 'bridge', table)).toEqual({ ok: true, replaced: false, text: table })
  })

  it('refuses a file that names mcp_servers another way', () => {
    for (const text of [
      '[mcp_servers]\nbridge = { url = "x" }\n',
      'mcp_servers.bridge.url = "x"\n',
      'mcp_servers = { }\n',
    ])
      expect(mergeCodexTable(text, 'bridge', table)).toMatchObject({ ok: false })
  })
})
