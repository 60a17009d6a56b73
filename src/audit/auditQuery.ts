import { AUDIT_BUFFER_SIZE, AUDIT_DEFAULT_LIMIT } from '../protocol'
import type { AuditQuery } from './auditEntry'

export type ParsedAuditQuery = { ok: true; value: AuditQuery } | { ok: false; message: string }

/**
 * Reads GET /audit's query string: limit 1-500 (default 50), plugin, tool, client, success=true|false,
 * and `earlier=1` (beyond the spec): after this run's entries, those of earlier runs from audit.log.
 */
export function parseAuditQuery(params: URLSearchParams): ParsedAuditQuery {
  const value: AuditQuery = { limit: AUDIT_DEFAULT_LIMIT }
  const limit = params.get('limit')
  if (limit !== null) {
    const n = /^\d+$/.test(limit) ? Number(limit) : NaN
    if (!Number.isInteger(n) || n < 1 || n > AUDIT_BUFFER_SIZE)
      return { ok: false, message: `limit must be an integer from 1 to ${AUDIT_BUFFER_SIZE}` }
    value.limit = n
  }
  const plugin = params.get('plugin')
  if (plugin !== null && plugin !== '') value.plugin = plugin
  const tool = params.get('tool')
  if (tool !== null && tool !== '') value.tool = tool
  const client = params.get('client')
  if (client !== null && client !== '') value.client = client
  const success = params.get('success')
  if (success !== null) {
    if (success !== 'true' && success !== 'false')
      return { ok: false, message: 'success must be true or false' }
    value.success = success === 'true'
  }
  const earlier = params.get('earlier')
  if (earlier !== null) {
    if (earlier !== '1' && earlier !== '0') return { ok: false, message: 'earlier must be 1 or 0' }
    if (earlier === '1') value.earlier = true
  }
  return { ok: true, value }
}
