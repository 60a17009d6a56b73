/**
 * The daemon's audit trail: audit.log in the config directory (rotated and group-committed as the
 * limits say) made verifiable (every line a leaf of a signed tree, ./auditTree), the last entries in
 * memory, a disk that refuses entries logged once per outage.
 */
import { log } from '../log'
import type { AuditEntry } from './auditEntry'
import { AuditFile } from './auditFile'
import { loadOrCreateAuditKey } from './auditKey'
import { AuditLog } from './auditLog'
import { AuditTree } from './auditTree'

const logger = log.withTag('audit')

export interface DaemonAuditParts {
  /** The config directory: audit.log lives there. */
  dir: string
  limits: { auditRotateBytes: number; auditSyncWindowMs: number; auditSignWindowMs?: number }
  /** Every entry, denied and timed-out calls too, as it is recorded. */
  onRecorded: (entry: AuditEntry) => void
}

export function createDaemonAudit(parts: DaemonAuditParts): AuditLog {
  const tree = new AuditTree(parts.dir, loadOrCreateAuditKey(parts.dir), parts.limits.auditSignWindowMs)
  const file = new AuditFile({
    dir: parts.dir,
    rotateBytes: parts.limits.auditRotateBytes,
    syncWindowMs: parts.limits.auditSyncWindowMs,
    hooks: tree,
  })
  // After the file cut a torn last line, if any: the tree is read from what is left.
  tree.load()
  return new AuditLog({
    file,
    tree,
    onRecorded: parts.onRecorded,
    onWriteError: (error) => logger.error('could not write audit.log:', error),
  })
}
