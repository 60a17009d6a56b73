/**
 * `bridge audit [--limit 20] [--plugin <name>] [--tool <name>] [--client <name>] [--since N[smhd]] [--json]
 * [--file]`:
 * tool invocations, newest first, from the running daemon (GET /audit) or, with --file, from
 * `<config>/audit.log` and `audit.log.1` (which also hold what happened before the last restart).
 */
import type { CAC } from 'cac'
import { escapedJson, neutralizeText } from '../../src/protocol/untrustedText'
import { existsSync, readFileSync } from 'node:fs'
import type { AuditEntry } from '../../src/audit/auditEntry'
import { bridgePaths, configDirFromEnv, type BridgePaths } from '../../src/config/paths'
import { AUDIT_BUFFER_SIZE } from '../../src/protocol'
import { pluginToolName } from '../../src/protocol/toolNames'
import { baseUrl, daemonFetch } from '../../src/http/daemonClient'
import { runningDaemonTarget } from '../shared/daemonTarget'
import { fail, say, warn } from '../shared/output'
import { checkpointCommand, exportCommand, verifyCommand, type AuditLogFlags } from './auditLogChecks'

interface AuditFlags {
  port?: unknown
  limit?: unknown
  plugin?: unknown
  tool?: unknown
  client?: unknown
  since?: unknown
  json?: boolean
  file?: boolean
}

interface Filter {
  limit: number
  plugin?: string
  tool?: string
  client?: string
  /** Epoch ms: entries before it are left out. */
  since?: number
}

const UNIT_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }

export function registerAudit(cli: CAC): void {
  cli
    .command(
      'audit [action] [file]',
      'Show tool invocations, newest first (from the daemon, or --file); `audit verify [--from <file>]`, ' +
        '`audit checkpoint`, `audit export --since <time> <file>` for the verifiable log',
    )
    .option('--limit <n>', `Entries to show, 1-${AUDIT_BUFFER_SIZE}`, { default: 20 })
    .option('--plugin <name>', 'Only this plugin (`browser` for built-in tools)')
    .option('--tool <name>', 'Only this tool (prefixed name, e.g. notes_list_notes)')
    .option(
      '--client <name>',
      'Only calls by this MCP client (`cli` and `extension` for the built-in callers)',
    )
    .option(
      '--since <age>',
      'Only the last N seconds/minutes/hours/days: 30s, 15m, 2h, 7d (export: also a date-time)',
    )
    .option('--json', 'Print JSON (failed entries carry error code, category and message)')
    .option('--file', 'Read audit.log on disk instead of the running daemon')
    .option(
      '--from <file>',
      'verify: a checkpoint file (what `audit checkpoint` printed) the log must extend',
    )
    .action((action: string | undefined, file: string | undefined, flags: AuditFlags & AuditLogFlags) => {
      const paths = bridgePaths(configDirFromEnv())
      if (action === 'verify') return verifyCommand(paths, flags)
      if (action === 'checkpoint') return checkpointCommand(paths, flags)
      if (action === 'export') return exportCommand(paths, file, flags)
      if (action !== undefined)
        return fail(`unknown audit action "${neutralizeText(action, 40)}": verify, checkpoint or export`)
      return audit(flags)
    })
}

async function audit(flags: AuditFlags): Promise<void> {
  const filter = parseFilter(flags, Date.now())
  if (typeof filter === 'string') return fail(filter)
  const paths = bridgePaths(configDirFromEnv())
  const entries = flags.file ? fromFile(paths) : await fromDaemon(paths, flags, filter)
  if (entries === null) return
  const shown = entries.filter((entry) => matches(entry, filter)).slice(0, filter.limit)
  if (flags.json) return say(escapedJson(shown, 2))
  if (shown.length === 0) return say('no audit entries match')
  for (const line of formatTable(shown)) say(line)
}

export function parseFilter(flags: AuditFlags, now: number): Filter | string {
  const limitText = flagText(flags.limit ?? 20)
  const limit = /^\d+$/.test(limitText) ? Number(limitText) : NaN
  if (!Number.isInteger(limit) || limit < 1 || limit > AUDIT_BUFFER_SIZE)
    return `--limit must be an integer from 1 to ${AUDIT_BUFFER_SIZE} (got "${limitText}")`
  const filter: Filter = { limit }
  if (typeof flags.plugin === 'string' && flags.plugin) filter.plugin = flags.plugin
  if (typeof flags.tool === 'string' && flags.tool) filter.tool = flags.tool
  if (flags.client !== undefined && flags.client !== '') filter.client = flagText(flags.client)
  if (flags.since !== undefined) {
    const match = /^(\d+)([smhd])$/.exec(flagText(flags.since))
    if (!match)
      return `--since must be a number and a unit s, m, h or d, like 30m or 2d (got "${flagText(flags.since)}")`
    filter.since = now - Number(match[1]) * UNIT_MS[match[2]!]!
  }
  return filter
}

function matches(entry: AuditEntry, filter: Filter): boolean {
  if (filter.plugin !== undefined && entry.plugin !== filter.plugin) return false
  // A base tool name with --plugin (`--plugin notes --tool list_notes`) also matches.
  if (
    filter.tool !== undefined &&
    entry.tool !== filter.tool &&
    entry.tool !== pluginToolName(entry.plugin, filter.tool)
  )
    return false
  if (filter.client !== undefined && entry.client !== filter.client) return false
  if (filter.since !== undefined && !(Date.parse(entry.timestamp) >= filter.since)) return false
  return true
}

async function fromDaemon(
  paths: BridgePaths,
  flags: AuditFlags,
  filter: Filter,
): Promise<AuditEntry[] | null> {
  const { port, secret } = await runningDaemonTarget(flags.port, { configDir: paths.dir })
  // The daemon filters by plugin and client; tool and --since are matched here, so ask for the whole
  // buffer then.
  const query = new URLSearchParams({
    limit: String(filter.tool || filter.since ? AUDIT_BUFFER_SIZE : filter.limit),
  })
  if (filter.plugin) query.set('plugin', filter.plugin)
  if (filter.client) query.set('client', filter.client)
  const result = await daemonFetch(port, secret, `/audit?${query}`)
  if (!result.ok) {
    fail(`${result.message}; \`bridge audit --file\` reads the log on disk`)
    return null
  }
  const res = result.response
  if (res.status !== 200) {
    fail(`${baseUrl(port)}/audit answered HTTP ${res.status}`)
    return null
  }
  return (await res.json()) as AuditEntry[]
}

/** audit.log.1 then audit.log, newest first. Lines that do not parse are counted, not fatal. */
function fromFile(paths: BridgePaths): AuditEntry[] | null {
  const files = [`${paths.auditLog}.1`, paths.auditLog].filter((file) => existsSync(file))
  if (files.length === 0) {
    fail(`no audit log at ${paths.auditLog} (no tool has been called with this config directory)`)
    return null
  }
  const entries: AuditEntry[] = []
  let unreadable = 0
  for (const file of files)
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (!line.trim()) continue
      try {
        const entry = JSON.parse(line) as AuditEntry
        if (typeof entry.tool === 'string' && typeof entry.timestamp === 'string') entries.push(entry)
        else unreadable++
      } catch {
        unreadable++
      }
    }
  if (unreadable) warn(`skipped ${unreadable} unreadable line(s) in ${paths.auditLog}`)
  return entries.reverse()
}

export function formatTable(entries: readonly AuditEntry[]): string[] {
  const rows = entries.map((entry) => [
    entry.timestamp,
    entry.success ? 'ok' : 'FAILED',
    `${entry.durationMs} ms`,
    entry.client === undefined ? '-' : oneLine(entry.client),
    oneLine(entry.tool),
    entry.error ? `${oneLine(entry.error.code)}: ${oneLine(entry.error.message)}` : '',
  ])
  const header = ['TIME', 'RESULT', 'DURATION', 'CLIENT', 'TOOL', 'ERROR']
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i]!.length)))
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd()
  return [line(header), ...rows.map(line)]
}

/**
 * One line of a terminal table. Tool names come from agents, messages from pages and plugins: runs of
 * white space become one space, control and format characters (escape sequences, bidi overrides) are
 * shown as `⟨U+001B⟩` (src/protocol/untrustedText), never sent to the terminal.
 */
function oneLine(text: string): string {
  return neutralizeText(text.replace(/[ \t\n\r]+/g, ' '), 99)
}

/** A flag value as the user typed it (cac gives numbers for numeric text, arrays for repeats). */
function flagText(value: unknown): string {
  return typeof value === 'string' || typeof value === 'number'
    ? String(value)
    : (JSON.stringify(value) ?? '')
}
