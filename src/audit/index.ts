export type { AuditDiskStatus, AuditEntry, AuditQuery, AuditSummary } from './auditEntry'
export { AUDIT_BACKLOG_MAX_LINES, AuditFile, type AuditFileOptions, type AuditFileStats } from './auditFile'
export { AuditLog, type AuditLogOptions } from './auditLog'
export { parseAuditQuery } from './auditQuery'
