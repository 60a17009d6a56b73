/** One audited tool invocation, as kept in memory, written to audit.log and returned by GET /audit. */
export interface AuditEntry {
  /** ISO 8601 date-time of the end of the invocation. */
  timestamp: string
  /** Prefixed tool name (`notes_list_notes`, `browser_navigate`). */
  tool: string
  /** Plugin name, `browser` for built-in tools. */
  plugin: string
  /** Who called: the MCP client's name, or `cli` / `extension` for the secret's holders (absent in older logs). */
  client?: string
  success: boolean
  /** How long the call took, without the time it waited for a person's approval. */
  durationMs: number
  /** How long the call waited for a person's approval (only on calls that asked; beyond the spec). */
  approvalMs?: number
  /** A workflow's step (its number from 1), on the entries of a `workflow_<name>` run's steps. */
  step?: number
  /** A site's own tool: the SHA-256 of the declaration the call was checked and dispatched with. */
  declared?: string
  /** Only on failed entries. */
  error?: { code: string; message: string; category?: string }
  /**
   * The data-flow guard's record, on a call it had a say in: the origins the matched values were read
   * on, the origins the call would write to, the kinds of match, and the decision. Never a value.
   */
  flowGuard?: {
    sources: string[]
    sinks: string[]
    kinds: string[]
    decision: string
  }
}

export interface AuditQuery {
  limit: number
  plugin?: string
  tool?: string
  client?: string
  success?: boolean
  /** Also the entries of earlier runs (from audit.log), after this run's; the memory buffer alone otherwise. */
  earlier?: boolean
}

/** `auditSummary` of /health: counts since the daemon started. */
export interface AuditSummary {
  totalInvocations: number
  successCount: number
  failureCount: number
  last24h: { total: number; success: number; failure: number }
  avgDurationMs: number
}

/** The disk log's state (health `auditLog`): written and synced, or refused since a moment. */
export type AuditDiskStatus =
  | { ok: true; linesWritten: number; syncs: number }
  | {
      ok: false
      linesWritten: number
      syncs: number
      /** The disk's error, e.g. `ENOSPC: no space left on device, write`. */
      error: string
      /** ISO 8601 time of the first refused write. */
      since: string
      failedEntries: number
      /** Refused lines kept to be written once the disk takes them again. */
      waitingForRetry: number
      /** Refused lines dropped because too many waited. */
      dropped: number
    }
