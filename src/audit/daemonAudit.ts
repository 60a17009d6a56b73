/**
 * The daemon's audit trail: audit.log in the config directory (rotated and group-committed as the
 * limits say), the last entries in memory, a disk that refuses entries logged once per outage.
 */
import { log } from '../log'
import type { AuditEntry } from './auditEntry'
import { AuditFile } from './auditFile'
import { AuditLog } from './auditLog'

const logger = log.withTag('audit')

export interface DaemonAuditParts {
  /** The config directory: audit.log lives there. */
  dir: string
  limits: { auditRotateBytes: number; auditSyncWindowMs: number }
  /** Every entry, denied and timed-out calls too, as it is recorded. */
  onRecorded: (entry: AuditEntry) => void
}

export function createDaemonAudit(parts: DaemonAuditParts): AuditLog {
  const file = new AuditFile({
    dir: parts.dir,
    rotateBytes: parts.limits.auditRotateBytes,
    syncWindowMs: parts.limits.auditSyncWindowMs,
  })
  return new AuditLog({
    file,
    onRecorded: parts.onRecorded,
    onWriteError: (error) => logger.error('could not write audit.log:', error),
  })
}
