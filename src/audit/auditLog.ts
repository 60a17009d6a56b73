import { log } from '../log'
import { AUDIT_BUFFER_SIZE } from '../protocol'
import type { AuditDiskStatus, AuditEntry, AuditQuery, AuditSummary } from './auditEntry'
import type { AuditFile } from './auditFile'
import type { AuditTree } from './auditTree'
import { canonicalJson } from './canonicalJson'
import { DayCounts } from './dayCounts'

const logger = log.withTag('audit')

export interface AuditLogOptions {
  /** The disk log; absent in tests that only need memory. */
  file?: AuditFile
  /** The verifiable log over the disk log's lines (checkpoints and proofs for /audit). */
  tree?: AuditTree
  bufferSize?: number
  /** Called once when disk writes start failing (not again until they have worked); the entry stays in memory. */
  onWriteError?: (error: unknown) => void
  /** Called for each entry as it enters the memory buffer (before the disk write). */
  onRecorded?: (entry: AuditEntry) => void
  now?: () => number
}

/**
 * Audit trail: the last 500 entries in memory, every entry appended to the disk log. The summary
 * counts what the disk log holds from earlier runs too (the memory buffer starts empty, SPEC).
 */
export class AuditLog {
  private readonly ring: AuditEntry[] = []
  /** The last entries of earlier runs, oldest first, read from the disk log at start (`earlier` queries). */
  private readonly earlier: AuditEntry[] = []
  private readonly lastDay = new DayCounts()
  private total = 0
  private successes = 0
  private durationSum = 0
  private readonly now: () => number
  private failing: { since: string; message: string; failedEntries: number } | undefined

  constructor(private readonly options: AuditLogOptions = {}) {
    this.now = options.now ?? Date.now
    if (options.file) this.countEarlierRuns(options.file)
  }

  /**
   * Records one entry, synchronously: in memory, and in the kernel's copy of audit.log when this
   * returns (so a killed daemon loses nothing); the file's group commit puts it on disk within its
   * window. A disk that refuses it is reported once per outage; the entry stays in memory and is
   * retried with the next one.
   */
  record(entry: AuditEntry): void {
    this.ring.push(entry)
    if (this.ring.length > (this.options.bufferSize ?? AUDIT_BUFFER_SIZE)) this.ring.shift()
    this.count(entry, this.now())
    this.options.onRecorded?.(entry)
    const { file } = this.options
    if (!file) return
    try {
      file.append(canonicalJson(entry))
      if (this.failing) {
        const { since, failedEntries } = this.failing
        this.failing = undefined
        logger.info(
          `audit.log is written again (it failed since ${since}; ${failedEntries} entries were refused, ` +
            `${file.stats.dropped} of them could not be kept for a retry)`,
        )
      }
    } catch (error) {
      // Logged once per outage, not once per call: a full disk must not flood server.log.
      if (this.failing) {
        this.failing.failedEntries++
        return
      }
      this.failing = {
        since: new Date(this.now()).toISOString(),
        message: error instanceof Error ? error.message : String(error),
        failedEntries: 1,
      }
      this.options.onWriteError?.(error)
    }
  }

  /** Resolves once every entry recorded so far is on disk and its checkpoint signed (a group commit now, if one is due). */
  async flush(): Promise<void> {
    await this.options.file?.flush()
    this.options.tree?.signCommitted()
  }

  /** Closes the disk log: one last try for its backlog and the last group commit (./auditFile). */
  async close(): Promise<void> {
    await this.options.file?.close()
    this.options.tree?.close()
  }

  /** The verifiable log, when there is a disk log. */
  get tree(): AuditTree | undefined {
    return this.options.tree
  }

  /** Whether the disk log is being written, for /health and `bridge doctor`. */
  diskStatus(): AuditDiskStatus {
    const stats = this.options.file?.stats
    const counts = { linesWritten: stats?.lines ?? 0, syncs: stats?.syncs ?? 0 }
    if (!this.failing && stats?.syncError !== undefined)
      return {
        ok: false,
        ...counts,
        error: stats.syncError.message,
        since: stats.syncError.since,
        failedEntries: 0,
        waitingForRetry: stats.backlog,
        dropped: stats.dropped,
      }
    if (!this.failing) return { ok: true, ...counts }
    return {
      ok: false,
      ...counts,
      error: this.failing.message,
      since: this.failing.since,
      failedEntries: this.failing.failedEntries,
      waitingForRetry: stats?.backlog ?? 0,
      dropped: stats?.dropped ?? 0,
    }
  }

  /**
   * Entries newest first, filtered, at most `limit`: this run's (the memory buffer, which starts empty,
   * SPEC), then with `earlier` those of earlier runs, so the side panel is not empty after a restart.
   */
  query(query: AuditQuery): AuditEntry[] {
    const out: AuditEntry[] = []
    const sources = query.earlier ? [this.ring, this.earlier] : [this.ring]
    for (const source of sources)
      for (let i = source.length - 1; i >= 0 && out.length < query.limit; i--) {
        const entry = source[i]!
        if (query.plugin !== undefined && entry.plugin !== query.plugin) continue
        if (query.tool !== undefined && entry.tool !== query.tool) continue
        if (query.client !== undefined && entry.client !== query.client) continue
        if (query.success !== undefined && entry.success !== query.success) continue
        out.push(entry)
      }
    return out
  }

  summary(): AuditSummary {
    return {
      totalInvocations: this.total,
      successCount: this.successes,
      failureCount: this.total - this.successes,
      last24h: this.lastDay.totals(this.now()),
      avgDurationMs: this.total === 0 ? 0 : Math.round(this.durationSum / this.total),
    }
  }

  private count(entry: AuditEntry, at: number): void {
    this.total++
    if (entry.success) this.successes++
    this.durationSum += entry.durationMs
    this.lastDay.add(at, entry.success)
  }

  /** Seeds the summary from audit.log.1 and audit.log, so a restart does not reset it. */
  private countEarlierRuns(file: AuditFile): void {
    const size = this.options.bufferSize ?? AUDIT_BUFFER_SIZE
    for (const line of file.readLines()) {
      let entry: AuditEntry
      try {
        entry = JSON.parse(line) as AuditEntry
      } catch {
        continue
      }
      if (typeof entry.success !== 'boolean' || typeof entry.durationMs !== 'number') continue
      const at = Date.parse(entry.timestamp)
      this.count(entry, Number.isFinite(at) ? at : 0)
      const kept = entryFromDisk(entry)
      if (kept) {
        this.earlier.push(kept)
        // Trimmed in batches: a 10 MB log has tens of thousands of lines.
        if (this.earlier.length >= 2 * size) this.earlier.splice(0, this.earlier.length - size)
      }
    }
    if (this.earlier.length > size) this.earlier.splice(0, this.earlier.length - size)
    this.lastDay.prune(this.now())
  }
}

const isStrings = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((v) => typeof v === 'string')

function isFlowGuardRecord(value: unknown): value is NonNullable<AuditEntry['flowGuard']> {
  if (typeof value !== 'object' || value === null) return false
  const { sources, sinks, kinds, decision } = value as Record<string, unknown>
  return isStrings(sources) && isStrings(sinks) && isStrings(kinds) && typeof decision === 'string'
}

/** A line of audit.log as an entry `earlier` queries may return: only the known fields, of the right types. */
function entryFromDisk(entry: AuditEntry): AuditEntry | undefined {
  const {
    timestamp,
    tool,
    plugin,
    client,
    success,
    durationMs,
    approvalMs,
    step,
    declared,
    error,
    flowGuard,
  } = entry
  if (typeof timestamp !== 'string' || typeof tool !== 'string' || typeof plugin !== 'string')
    return undefined
  const errorOk =
    typeof error === 'object' &&
    error !== null &&
    typeof error.code === 'string' &&
    typeof error.message === 'string'
  return {
    timestamp,
    tool,
    plugin,
    ...(typeof client === 'string' ? { client } : {}),
    success,
    durationMs,
    ...(typeof approvalMs === 'number' ? { approvalMs } : {}),
    ...(typeof step === 'number' ? { step } : {}),
    ...(typeof declared === 'string' ? { declared } : {}),
    ...(isFlowGuardRecord(flowGuard) ? { flowGuard } : {}),
    ...(errorOk
      ? {
          error: {
            code: error.code,
            message: error.message,
            ...(typeof error.category === 'string' ? { category: error.category } : {}),
          },
        }
      : {}),
  }
}
