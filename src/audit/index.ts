export type { AuditEntry, AuditQuery, AuditSummary } from './auditEntry'
export { AuditFile, type AuditFileOptions } from './auditFile'
export { AuditLog, type AuditLogOptions } from './auditLog'
export { parseAuditQuery } from './auditQuery'
