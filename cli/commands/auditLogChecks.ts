/**
 * The verifiable audit log from the command line:
 * - `bridge audit verify [--from <file>]`: recomputes the tree from the files (daemon running or
 *   not), checks every signed checkpoint, and with --from that today's log extends the checkpoint
 *   kept in that file; exits 1 naming the first entry that does not fit.
 * - `bridge audit checkpoint`: prints the current signed head (from the running daemon, or signed
 *   from the files with audit.key), to keep somewhere else.
 * - `bridge audit export --since <time> <file>`: writes the entries since then, each with its
 *   inclusion proof, and the checkpoint they prove against.
 *
 * @example
 *   bridge audit checkpoint > ~/Documents/bridge-checkpoint.json
 *   bridge audit verify --from ~/Documents/bridge-checkpoint.json
 *   bridge audit export --since 2d calls.json
 */
import { readFileSync } from 'node:fs'
import { readAuditTree } from '../../src/audit/auditDisk'
import { readAuditKey } from '../../src/audit/auditKey'
import { verifyAuditLog } from '../../src/audit/verifyLog'
import { atomicWriteFile } from '../../src/config/atomicWrite'
import type { BridgePaths } from '../../src/config/paths'
import { isAuditCheckpoint, toHex, type AuditCheckpoint } from '../../src/protocol/auditProof'
import { escapedJson, neutralizeText } from '../../src/protocol/untrustedText'
import { daemonFetch } from '../../src/http/daemonClient'
import { daemonTarget } from '../shared/daemonTarget'
import { errorText, fail, say, sayWithSecret } from '../shared/output'

export interface AuditLogFlags {
  port?: unknown
  from?: unknown
  since?: unknown
}

/** The format name an export file carries. */
export const AUDIT_EXPORT_FORMAT = 'bridge-audit-export/1'

export async function verifyCommand(paths: BridgePaths, flags: AuditLogFlags): Promise<void> {
  let from: AuditCheckpoint | undefined
  if (flags.from !== undefined) {
    const file = typeof flags.from === 'string' ? flags.from : JSON.stringify(flags.from)
    let value: unknown
    try {
      value = JSON.parse(readFileSync(file, 'utf8'))
    } catch (error) {
      return fail(`--from ${file}: not a checkpoint file (${errorText(error)})`)
    }
    if (!isAuditCheckpoint(value))
      return fail(`--from ${file}: not a checkpoint (what \`bridge audit checkpoint\` prints)`)
    from = value
  }
  const report = await verifyAuditLog(paths.dir, from)
  if (report.ok) {
    // Not through say(): its redaction would take the 64-hex root for a secret.
    sayWithSecret(
      `audit log verified: ${report.size} entries, root ${report.root}, ` +
        `${report.checkpointsChecked} signed checkpoint(s) fit${from ? `, extends the checkpoint of ${neutralizeText(from.time, 40)}` : ''}`,
    )
    return
  }
  if (report.firstBadEntry)
    fail(
      `the first entry that does not fit: #${report.firstBadEntry.index + 1} (${report.firstBadEntry.where})`,
    )
  else fail('the audit log does not fit its checkpoints')
  for (const problem of report.problems.slice(0, 20)) say(`- ${problem}`)
  if (report.problems.length > 20) say(`- and ${report.problems.length - 20} more`)
}

export async function checkpointCommand(paths: BridgePaths, flags: AuditLogFlags): Promise<void> {
  const fromDaemon = await daemonCheckpoint(paths, flags)
  const checkpoint = fromDaemon ?? localCheckpoint(paths)
  if (!checkpoint)
    return fail(`no audit key at ${paths.dir}/audit.key: the daemon has not run with this config yet`)
  // Not through say(): its redaction would take the base64 key and signature for secrets. JSON
  // escapes every control character, so nothing here can reach the terminal raw.
  sayWithSecret(escapedJson(checkpoint, 2))
}

export function exportCommand(paths: BridgePaths, file: string | undefined, flags: AuditLogFlags): void {
  if (!file) return fail('name the file to write: `bridge audit export --since 1d <file>`')
  const since = parseSince(flags.since, Date.now())
  if (typeof since === 'string') return fail(since)
  const entries: { index: number; line: string }[] = []
  const tree = readAuditTree(paths.dir, ({ index, bytes }) => {
    const line = bytes.toString('utf8')
    let timestamp: unknown
    try {
      timestamp = (JSON.parse(line) as { timestamp?: unknown }).timestamp
    } catch {
      return
    }
    if (typeof timestamp === 'string' && Date.parse(timestamp) >= since) entries.push({ index, line })
  })
  const signer = readAuditKey(paths.dir)
  if (!signer)
    return fail(`no audit key at ${paths.dir}/audit.key: the daemon has not run with this config yet`)
  const size = tree.leaves.size
  const checkpoint = signer.checkpoint(size, toHex(tree.leaves.root()))
  const exported = {
    format: AUDIT_EXPORT_FORMAT,
    checkpoint,
    entries: entries.map(({ index, line }) => ({
      index,
      line,
      proof: tree.leaves.inclusionProof(index, size).map(toHex),
    })),
  }
  atomicWriteFile(file, `${escapedJson(exported, 2)}\n`)
  say(`wrote ${entries.length} entries with their inclusion proofs in a tree of ${size} to ${file}`)
}

/** `--since`: an age (30m, 2d) or a date-time (2026-11-27T10:00:00Z). */
export function parseSince(value: unknown, now: number): number | string {
  if (value === undefined) return '--since is needed: an age like 2d or a time like 2026-11-27T10:00:00Z'
  const text = typeof value === 'string' || typeof value === 'number' ? String(value) : JSON.stringify(value)
  const age = /^(\d+)([smhd])$/.exec(text)
  if (age) return now - Number(age[1]) * { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[age[2] as 's']
  const at = Date.parse(text)
  if (Number.isFinite(at)) return at
  return `--since must be an age like 2d or a time like 2026-11-27T10:00:00Z (got "${neutralizeText(text, 60)}")`
}

/** The running daemon's checkpoint, or undefined when no daemon answers. */
async function daemonCheckpoint(
  paths: BridgePaths,
  flags: AuditLogFlags,
): Promise<AuditCheckpoint | undefined> {
  let target
  try {
    target = daemonTarget(flags.port, { configDir: paths.dir, brokenConfig: 'ignore' })
  } catch {
    return undefined
  }
  if (!target.secret) return undefined
  const result = await daemonFetch(target.port, target.secret, '/audit/checkpoint')
  if (!result.ok || result.response.status !== 200) return undefined
  const value: unknown = await result.response.json()
  return isAuditCheckpoint(value) ? value : undefined
}

/** Signed here with audit.key, from the files (no daemon running). */
function localCheckpoint(paths: BridgePaths): AuditCheckpoint | undefined {
  const signer = readAuditKey(paths.dir)
  if (!signer) return undefined
  const tree = readAuditTree(paths.dir)
  return signer.checkpoint(tree.leaves.size, toHex(tree.leaves.root()))
}
