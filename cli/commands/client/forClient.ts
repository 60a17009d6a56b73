/**
 * `bridge client add <name> --for <client>`: writes bridge's entry into a known MCP client's own
 * configuration file, in that client's format, with the named client's token. The file is read,
 * merged (only bridge's own entry is added or replaced; every other server and setting is kept),
 * backed up beside itself, and replaced with mode 0600 by one link, never torn. A file that is not plain JSON
 * (comments, trailing commas) is left untouched: the user is shown what to add by hand.
 *
 * The file belongs to another program, so bridge reads and writes it warily (./clientConfigFile): it
 * never reads or writes through a symbolic link (a link planted there could make bridge copy another
 * file, auth.json say, into a file an agent reads), only a regular file of the user's own in a folder
 * of the user's own, and it leaves the file alone when it changed while bridge was merging it (the
 * program saving it at that moment).
 */
import { mkdirSync } from 'node:fs'
import { homedir } from 'node:os'
import { dirname, join } from 'node:path'
import { atomicWriteFile, PRIVATE_FILE_MODE } from '../../../src/config/atomicWrite'
import { MCP_SERVER_KEY, mcpUrl } from '../../shared/mcpConfig'
import { readOwnFile, replaceIfUnchanged } from './clientConfigFile'
import { codexTable, mergeCodexTable } from './codexToml'

export const MCP_CLIENT_KINDS = [
  'claude-code',
  'cursor',
  'vscode',
  'windsurf',
  'claude-desktop',
  'gemini-cli',
  'codex',
] as const
export type McpClientKind = (typeof MCP_CLIENT_KINDS)[number]

export function isMcpClientKind(value: string): value is McpClientKind {
  return (MCP_CLIENT_KINDS as readonly string[]).includes(value)
}

export interface ServerEntryInput {
  port: number
  token: string
  /** For the stdio form: the node binary and the bridge CLI script. */
  nodePath: string
  cliPath: string
}

interface Target {
  label: string
  file: (env: NodeJS.ProcessEnv) => string
  /** `toml`: Codex's config.toml, one `[mcp_servers.<name>]` table per server; otherwise JSON. */
  format?: 'toml'
  /** The top-level key holding the servers map. */
  serversKey: string
  entry: (input: ServerEntryInput) => Record<string, unknown>
}

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` })

/** A per-user application directory: macOS Application Support, Windows APPDATA, else XDG config. */
function appDir(env: NodeJS.ProcessEnv, app: string): string {
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Application Support', app)
  if (process.platform === 'win32' && env.APPDATA) return join(env.APPDATA, app)
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), app)
}

const TARGETS: Record<McpClientKind, Target> = {
  // User scope of Claude Code: `mcpServers` at the top of ~/.claude.json, which holds its other state too.
  'claude-code': {
    label: 'Claude Code',
    file: () => join(homedir(), '.claude.json'),
    serversKey: 'mcpServers',
    entry: ({ port, token }) => ({ type: 'http', url: mcpUrl(port), headers: bearer(token) }),
  },
  cursor: {
    label: 'Cursor',
    file: () => join(homedir(), '.cursor', 'mcp.json'),
    serversKey: 'mcpServers',
    entry: ({ port, token }) => ({ url: mcpUrl(port), headers: bearer(token) }),
  },
  // VS Code's user mcp.json names its map `servers`.
  vscode: {
    label: 'VS Code',
    file: (env) => join(appDir(env, 'Code'), 'User', 'mcp.json'),
    serversKey: 'servers',
    entry: ({ port, token }) => ({ type: 'http', url: mcpUrl(port), headers: bearer(token) }),
  },
  // Windsurf takes a remote server's address as `serverUrl`.
  windsurf: {
    label: 'Windsurf',
    file: () => join(homedir(), '.codeium', 'windsurf', 'mcp_config.json'),
    serversKey: 'mcpServers',
    entry: ({ port, token }) => ({ serverUrl: mcpUrl(port), headers: bearer(token) }),
  },
  // Claude Desktop only spawns processes: `bridge mcp` relays stdio to the daemon.
  'claude-desktop': {
    label: 'Claude Desktop',
    file: (env) => join(appDir(env, 'Claude'), 'claude_desktop_config.json'),
    serversKey: 'mcpServers',
    entry: ({ port, token, nodePath, cliPath }) => ({
      command: nodePath,
      args: [cliPath, 'mcp'],
      env: { BRIDGE_CLIENT_TOKEN: token, BRIDGE_PORT: String(port) },
    }),
  },
  // Gemini CLI: `httpUrl` is its Streamable HTTP transport (`url` would mean SSE).
  'gemini-cli': {
    label: 'Gemini CLI',
    file: () => join(homedir(), '.gemini', 'settings.json'),
    serversKey: 'mcpServers',
    entry: ({ port, token }) => ({ httpUrl: mcpUrl(port), headers: bearer(token) }),
  },
  // Codex: TOML in $CODEX_HOME (default ~/.codex); literal headers go in `http_headers`.
  codex: {
    label: 'Codex',
    file: (env) => join(env.CODEX_HOME || join(homedir(), '.codex'), 'config.toml'),
    format: 'toml',
    serversKey: 'mcp_servers',
    entry: ({ port, token }) => ({ url: mcpUrl(port), http_headers: bearer(token) }),
  },
}

export function targetFile(kind: McpClientKind, env: NodeJS.ProcessEnv = process.env): string {
  return TARGETS[kind].file(env)
}

export function targetLabel(kind: McpClientKind): string {
  return TARGETS[kind].label
}

/** The fragment to add by hand when the file cannot be merged. */
export function targetSnippet(kind: McpClientKind, input: ServerEntryInput): string {
  const target = TARGETS[kind]
  if (target.format === 'toml') return codexTable(MCP_SERVER_KEY, mcpUrl(input.port), input.token)
  return JSON.stringify({ [target.serversKey]: { [MCP_SERVER_KEY]: target.entry(input) } }, null, 2)
}

export type WriteOutcome =
  | { ok: true; file: string; backup: string | null; replaced: boolean }
  | { ok: false; file: string; message: string }

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

export function writeClientConfig(
  kind: McpClientKind,
  input: ServerEntryInput,
  env: NodeJS.ProcessEnv = process.env,
  now: Date = new Date(),
): WriteOutcome {
  const target = TARGETS[kind]
  const file = target.file(env)
  if (target.format === 'toml') return writeTomlConfig(file, input, now)
  let document: Record<string, unknown> = {}
  let backup: string | null = null
  const read = readOwnFile(file)
  if (!read.ok) return { ok: false, file, message: read.message }
  if (read.text !== undefined) {
    const text = read.text
    let parsed: unknown
    try {
      parsed = text.trim() === '' ? {} : JSON.parse(text)
    } catch {
      return { ok: false, file, message: `${file} is not plain JSON (comments?), so it was left as it is` }
    }
    if (!isRecord(parsed))
      return { ok: false, file, message: `${file} does not hold a JSON object; left as it is` }
    const servers = parsed[target.serversKey]
    if (servers !== undefined && !isRecord(servers))
      return { ok: false, file, message: `"${target.serversKey}" in ${file} is not an object; left as it is` }
    document = parsed
    backup = backUp(file, text, now)
  } else mkdirSync(dirname(file), { recursive: true })
  const servers = isRecord(document[target.serversKey])
    ? (document[target.serversKey] as Record<string, unknown>)
    : {}
  const replaced = Object.hasOwn(servers, MCP_SERVER_KEY)
  const next = { ...document, [target.serversKey]: { ...servers, [MCP_SERVER_KEY]: target.entry(input) } }
  // A file its program rewrote meanwhile keeps the program's version.
  if (!replaceIfUnchanged(file, read.stat, `${JSON.stringify(next, null, 2)}\n`, PRIVATE_FILE_MODE))
    return {
      ok: false,
      file,
      message: `${file} changed while bridge was merging it (is ${target.label} saving it right now?), so it was left as ${target.label} wrote it; try again`,
    }
  return { ok: true, file, backup, replaced }
}

/** A private copy of the previous file beside it: it may hold other servers' credentials. */
function backUp(file: string, text: string, now: Date): string {
  const backup = `${file}.bridge-backup-${now.toISOString().replace(/[:.]/g, '-')}`
  atomicWriteFile(backup, text, PRIVATE_FILE_MODE)
  return backup
}

function writeTomlConfig(file: string, input: ServerEntryInput, now: Date): WriteOutcome {
  const table = codexTable(MCP_SERVER_KEY, mcpUrl(input.port), input.token)
  const read = readOwnFile(file)
  if (!read.ok) return { ok: false, file, message: read.message }
  const text = read.text ?? null
  const merged = mergeCodexTable(text ?? '', MCP_SERVER_KEY, table)
  if (!merged.ok) return { ok: false, file, message: `${file}: ${merged.message}` }
  let backup: string | null = null
  if (text !== null) backup = backUp(file, text, now)
  else mkdirSync(dirname(file), { recursive: true })
  if (!replaceIfUnchanged(file, read.stat, merged.text, PRIVATE_FILE_MODE))
    return {
      ok: false,
      file,
      message: `${file} changed while bridge was merging it (is Codex saving it right now?), so it was left as Codex wrote it; try again`,
    }
  return { ok: true, file, backup, replaced: merged.replaced }
}
