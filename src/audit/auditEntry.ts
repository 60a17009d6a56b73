/** One audited tool invocation, as kept in memory, written to audit.log and returned by GET /audit. */
export interface AuditEntry {
  /** ISO 8601 date-time of the end of the invocation. */
  timestamp: string
  /** Prefixed tool name (`notes_list_notes`, `browser_navigate`). */
  tool: string
  /** Plugin name, `browser` for built-in tools. */
  plugin: string
  /** The MCP client that made the call (the name its token was issued under). */
  client?: string
  success: boolean
  durationMs: number
  /** Only on failed entries. */
  error?: { code: string; message: string; category?: string }
}

export interface AuditQuery {
  limit: number
  plugin?: string
  tool?: string
  success?: boolean
}

/** `auditSummary` of /health: counts since the daemon started. */
export interface AuditSummary {
  totalInvocations: number
  successCount: number
  failureCount: number
  last24h: { total: number; success: number; failure: number }
  avgDurationMs: number
}
