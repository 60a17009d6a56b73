import { AUDIT_BUFFER_SIZE } from '../protocol'
import type { AuditEntry, AuditQuery, AuditSummary } from './auditEntry'
import type { AuditFile } from './auditFile'

const DAY_MS = 24 * 60 * 60 * 1000

export interface AuditLogOptions {
  /** The disk log; absent in tests that only need memory. */
  file?: AuditFile
  bufferSize?: number
  /** Called when a disk write fails; the entry stays in memory. */
  onWriteError?: (error: unknown) => void
  now?: () => number
}

/** Audit trail: the last 500 entries in memory, every entry appended to the disk log. */
export class AuditLog {
  private readonly ring: AuditEntry[] = []
  private readonly recent: { at: number; success: boolean }[] = []
  private total = 0
  private successes = 0
  private durationSum = 0
  private readonly now: () => number

  constructor(private readonly options: AuditLogOptions = {}) {
    this.now = options.now ?? Date.now
  }

  /** Records one entry. Resolves once it is on disk (or the disk write failed and was reported). */
  async record(entry: AuditEntry): Promise<void> {
    this.ring.push(entry)
    if (this.ring.length > (this.options.bufferSize ?? AUDIT_BUFFER_SIZE)) this.ring.shift()
    this.total++
    if (entry.success) this.successes++
    this.durationSum += entry.durationMs
    this.recent.push({ at: this.now(), success: entry.success })
    this.prune()
    if (!this.options.file) return
    try {
      await this.options.file.append(JSON.stringify(entry))
    } catch (error) {
      this.options.onWriteError?.(error)
    }
  }

  /** Entries newest first, filtered, at most `limit`. */
  query(query: AuditQuery): AuditEntry[] {
    const out: AuditEntry[] = []
    for (let i = this.ring.length - 1; i >= 0 && out.length < query.limit; i--) {
      const entry = this.ring[i]!
      if (query.plugin !== undefined && entry.plugin !== query.plugin) continue
      if (query.tool !== undefined && entry.tool !== query.tool) continue
      if (query.success !== undefined && entry.success !== query.success) continue
      out.push(entry)
    }
    return out
  }

  summary(): AuditSummary {
    this.prune()
    const success = this.recent.filter((r) => r.success).length
    return {
      totalInvocations: this.total,
      successCount: this.successes,
      failureCount: this.total - this.successes,
      last24h: { total: this.recent.length, success, failure: this.recent.length - success },
      avgDurationMs: this.total === 0 ? 0 : Math.round(this.durationSum / this.total),
    }
  }

  private prune(): void {
    const cutoff = this.now() - DAY_MS
    let drop = 0
    while (drop < this.recent.length && this.recent[drop]!.at < cutoff) drop++
    if (drop > 0) this.recent.splice(0, drop)
  }
}
