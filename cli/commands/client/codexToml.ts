/**
 * Codex keeps its MCP servers in TOML (`~/.codex/config.toml`, or `$CODEX_HOME/config.toml`), one
 * table per server: `[mcp_servers.bridge]` with `url` and `http_headers`. bridge owns that one table:
 * it is replaced (with any `[mcp_servers.bridge.*]` sub-tables) or appended, and every other line of
 * the file is kept byte for byte. A file that names bridge's server some other way (a dotted key, an
 * inline table under `[mcp_servers]`) is not rewritten: the person is shown the table to add by hand.
 */

/** A TOML basic string: quotes, backslashes and control characters escaped. */
export function tomlString(value: string): string {
  const named: Record<string, string> = { '\\': '\\\\', '"': '\\"', '\n': '\\n', '\t': '\\t', '\r': '\\r' }
  let out = ''
  for (const c of value) {
    const code = c.codePointAt(0) ?? 0
    if (named[c] !== undefined) out += named[c]
    else if (code < 0x20 || code === 0x7f) out += `\\u${code.toString(16).padStart(4, '0')}`
    else out += c
  }
  return `"${out}"`
}

/** The `[mcp_servers.<key>]` table for a Streamable HTTP server with a bearer token. */
export function codexTable(key: string, url: string, token: string): string {
  return [
    `[mcp_servers.${key}]`,
    `url = ${tomlString(url)}`,
    `http_headers = { "Authorization" = ${tomlString(`Bearer ${token}`)} }`,
    '',
  ].join('\n')
}

const TABLE_HEADER = /^\s*\[\s*([^\]\s][^\]]*?)\s*\]\s*(#.*)?$/

/** `mcp_servers.bridge` and `mcp_servers."bridge"` (and their sub-tables) name the same table. */
function isOwnTable(header: string, key: string): boolean {
  const parts = header.split('.').map((p) =>
    p
      .trim()
      .replace(/^"(.*)"$/, '$1')
      .replace(/^'(.*)'$/, '$1'),
  )
  return parts[0] === 'mcp_servers' && parts[1] === key
}

export type TomlMerge = { ok: true; text: string; replaced: boolean } | { ok: false; message: string }

/** The file with bridge's table replaced or appended; the rest kept as it was. */
export function mergeCodexTable(text: string, key: string, table: string): TomlMerge {
  const lines = text.split('\n')
  const kept: string[] = []
  let inOwn = false
  let replaced = false
  let insertAt = -1
  for (const line of lines) {
    const header = TABLE_HEADER.exec(line)?.[1]
    // An array-of-tables line `[[...]]` also ends our table.
    const anyHeader = header !== undefined || /^\s*\[\[/.test(line)
    if (anyHeader) {
      const own = header !== undefined && isOwnTable(header, key)
      if (own && !inOwn && insertAt === -1) insertAt = kept.length
      inOwn = own
      if (own) replaced = true
    }
    if (!inOwn) kept.push(line)
  }
  const rest = kept.join('\n')
  const otherwise = new RegExp(
    `(^|\\n)\\s*(mcp_servers\\s*\\.\\s*["']?${key}["']?\\s*[.=]|\\[\\s*mcp_servers\\s*\\]|mcp_servers\\s*=)`,
  )
  if (otherwise.test(rest))
    return {
      ok: false,
      message: `the file defines mcp_servers in a form other than [mcp_servers.<name>] tables, so it was left as it is`,
    }
  if (insertAt !== -1) {
    const before = kept.slice(0, insertAt)
    const after = kept.slice(insertAt)
    return { ok: true, text: [...before, ...table.trimEnd().split('\n'), '', ...after].join('\n'), replaced }
  }
  const base = rest.replace(/\n*$/, '')
  return { ok: true, text: base === '' ? table : `${base}\n\n${table}`, replaced: false }
}
