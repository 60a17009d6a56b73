import {
  closeSync,
  constants,
  fchmodSync,
  fdatasync,
  fdatasyncSync,
  fstatSync,
  ftruncateSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  writeSync,
  type PathLike,
} from 'node:fs'
import { join } from 'node:path'
import { log } from '../log'

const logger = log.withTag('audit')

/** Lines kept for a later retry while the disk refuses them; past this the oldest are dropped. */
export const AUDIT_BACKLOG_MAX_LINES = 1000
/** The longest an appended line waits before the group commit that puts it on disk starts. */
export const AUDIT_SYNC_WINDOW_MS = 20

/** What the verifiable log (./auditTree) is told as the file is written. */
export interface AuditFileHooks {
  /** These lines (without their newlines) are now in the file, in this order. */
  written(lines: readonly string[]): void
  /** A group commit starts; what it returns runs once it has put the lines on disk. */
  syncStarted(): () => void
  /** audit.log is about to become audit.log.1 (and the old audit.log.1 to go). */
  rotating(): void
  /**
   * False while the files are being read (one after the other): audit.log then grows past its limit
   * for a moment and rotates at the first write after.
   */
  mayRotate(): boolean
}

export interface AuditFileOptions {
  dir: string
  hooks?: AuditFileHooks
  /** Rotate when a write would take the file past this size. */
  rotateBytes: number
  /** The group commit's window (default AUDIT_SYNC_WINDOW_MS). */
  syncWindowMs?: number
}

export interface AuditFileStats {
  /** Lines handed to the kernel (they survive the daemon being killed). */
  lines: number
  /** Group commits done: each one `fdatasync` puts every line written before it on disk. */
  syncs: number
  /** Lines waiting for a retry because the disk refused them. */
  backlog: number
  /** Lines dropped because the backlog was full. */
  dropped: number
  /** Why group commits fail and since when, until one succeeds (the lines stay in the kernel's cache). */
  syncError: { message: string; since: string } | undefined
}

/**
 * The NDJSON disk log: `audit.log` (0600) rotated to `audit.log.1` at the size limit.
 *
 * Two steps per line. `append` writes the line to the file synchronously (one `write`, no thread
 * pool): once it returns the line is in the kernel, so a daemon killed at any moment after (kill -9,
 * a crash) loses nothing, and the call it records may answer. A group commit then puts the lines on
 * the disk itself: one `fdatasync`, started at most `syncWindowMs` after the first line it covers,
 * for every line written before it. So a power cut or an OS crash can lose at most the lines of the
 * last window (plus the sync's own time), and a sequential caller never waits for the disk.
 *
 * A line the disk refused (full, gone) is kept (up to AUDIT_BACKLOG_MAX_LINES) and written before
 * the next one, so entries recorded while the disk was full reach it when it frees up.
 */
export class AuditFile {
  readonly path: string
  private fd: number | undefined
  private size = 0
  private backlog: string[] = []
  private readonly counts = { lines: 0, syncs: 0, dropped: 0 }
  /** Lines written since the last group commit started. */
  private unsynced = false
  private syncTimer: ReturnType<typeof setTimeout> | undefined
  private syncing: Promise<void> | undefined
  private readonly windowMs: number
  private syncError: { message: string; since: string } | undefined

  constructor(private readonly options: AuditFileOptions) {
    this.path = join(options.dir, 'audit.log')
    this.windowMs = options.syncWindowMs ?? AUDIT_SYNC_WINDOW_MS
    repairTornTail(this.path)
  }

  /**
   * Appends one line: in the kernel when this returns (a group commit puts it on disk within the
   * window). Throws when the disk refused it; the line is kept and retried with the next one.
   */
  append(line: string): void {
    this.writeWithBacklog([`${line}\n`])
    this.scheduleSync()
  }

  get stats(): AuditFileStats {
    return { ...this.counts, backlog: this.backlog.length, syncError: this.syncError }
  }

  /** Resolves once every line appended so far is on disk (a group commit now, if one is due). */
  async flush(): Promise<void> {
    await this.syncing
    if (!this.unsynced) return
    clearTimeout(this.syncTimer)
    this.syncTimer = undefined
    await this.sync()
  }

  /** Every entry line of `audit.log.1` then `audit.log`, oldest first (unparseable lines skipped). */
  readLines(): string[] {
    const lines: string[] = []
    for (const path of [`${this.path}.1`, this.path]) {
      let text: string
      try {
        text = readFileSync(path, 'utf8')
      } catch {
        continue
      }
      for (const line of text.split('\n')) if (line !== '') lines.push(line)
    }
    return lines
  }

  /** One last try for the backlog, the last group commit, then the file is closed. */
  async close(): Promise<void> {
    if (this.backlog.length > 0) {
      const waiting = this.backlog.length
      try {
        this.writeWithBacklog([])
        this.unsynced = true
      } catch (error) {
        logger.warn(`${waiting} audit entries could not be written at shutdown:`, error)
      }
    }
    await this.flush().catch(() => undefined)
    if (this.fd !== undefined) closeSync(this.fd)
    this.fd = undefined
  }

  private scheduleSync(): void {
    this.unsynced = true
    if (this.syncTimer || this.syncing) return
    this.syncTimer = setTimeout(() => {
      this.syncTimer = undefined
      void this.sync()
    }, this.windowMs)
  }

  /** One group commit: every line written before it starts is on disk when it resolves. */
  private sync(): Promise<void> {
    const fd = this.fd
    this.unsynced = false
    if (fd === undefined) return Promise.resolve()
    const synced = this.options.hooks?.syncStarted()
    this.syncing = new Promise<void>((resolve) => {
      fdatasync(fd, (error) => {
        this.syncing = undefined
        if (error) {
          if (this.syncError === undefined) logger.error('could not sync audit.log to disk:', error)
          this.syncError ??= { message: error.message, since: new Date().toISOString() }
          this.unsynced = true
        } else {
          this.syncError = undefined
          this.counts.syncs++
          synced?.()
        }
        // Lines written while this sync ran wait for the next one, within the window.
        if (this.unsynced && !this.syncTimer) this.scheduleSync()
        resolve()
      })
    })
    return this.syncing
  }

  /**
   * Writes the lines kept from a refused write, then `lines`, in one write. When the disk refuses it,
   * all of them are kept for the next try (up to the backlog's cap) and the error is thrown.
   */
  private writeWithBacklog(lines: string[]): void {
    const pending = this.backlog.length > 0 ? [...this.backlog, ...lines] : lines
    this.backlog = []
    try {
      this.write(pending.join(''))
      this.counts.lines += pending.length
    } catch (error) {
      this.keepForRetry(pending)
      throw error
    }
    this.options.hooks?.written(pending.map((line) => line.slice(0, -1)))
  }

  private keepForRetry(lines: string[]): void {
    const over = this.backlog.length + lines.length - AUDIT_BACKLOG_MAX_LINES
    const kept = [...this.backlog, ...lines]
    if (over > 0) {
      this.counts.dropped += over
      kept.splice(0, over)
    }
    this.backlog = kept
  }

  private write(text: string): void {
    const bytes = Buffer.from(text, 'utf8')
    let fd = this.ensureOpen()
    const hooks = this.options.hooks
    if (
      this.size > 0 &&
      this.size + bytes.length > this.options.rotateBytes &&
      (hooks === undefined || hooks.mayRotate())
    ) {
      // The full file goes to disk before it is renamed: rotation is rare (every few MB).
      fdatasyncSync(fd)
      closeSync(fd)
      this.fd = undefined
      hooks?.rotating()
      renameSync(this.path, `${this.path}.1`)
      fd = this.ensureOpen()
    }
    try {
      let offset = 0
      while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset)
      this.size += bytes.length
    } catch (error) {
      // A full disk may have taken part of the line: cut it off so no torn line stays behind.
      try {
        ftruncateSync(fd, this.size)
      } catch {
        // The handle is reopened (and its size re-read) on the next write.
      }
      this.fd = undefined
      try {
        closeSync(fd)
      } catch {
        // Already unusable.
      }
      throw error
    }
  }

  private ensureOpen(): number {
    if (this.fd !== undefined) return this.fd
    // O_NOFOLLOW: a symbolic link planted as audit.log is refused (ELOOP), never written through.
    const fd = openSync(
      this.path,
      constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW,
      0o600,
    )
    try {
      // An older file may have been created with a looser mode.
      fchmodSync(fd, 0o600)
      this.size = fstatSync(fd).size
    } catch (error) {
      closeSync(fd)
      throw error
    }
    this.fd = fd
    return fd
  }
}

/**
 * A power cut or an OS crash during a group commit can leave the last line of audit.log half on disk
 * (a killed daemon cannot: each line is one `write`). Half a line is no entry, so it is cut off at
 * start-up, and the log says so.
 */
function repairTornTail(path: PathLike): void {
  let fd: number | undefined
  try {
    fd = openSync(path, 'r+')
    const size = fstatSync(fd).size
    if (size === 0) return
    const last = Buffer.alloc(1)
    readSync(fd, last, 0, 1, size - 1)
    if (last[0] === 0x0a) return
    // Find the last newline, reading backwards in blocks.
    const block = Buffer.alloc(64 * 1024)
    let end = size
    let keep = 0
    while (end > 0) {
      const start = Math.max(0, end - block.length)
      const read = readSync(fd, block, 0, end - start, start)
      const at = block.subarray(0, read).lastIndexOf(0x0a)
      if (at >= 0) {
        keep = start + at + 1
        break
      }
      end = start
    }
    ftruncateSync(fd, keep)
    logger.warn(
      `audit.log ended with a torn line (${size - keep} bytes, from a crash during a write); removed it`,
    )
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return
    logger.warn('could not check audit.log for a torn last line:', error)
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}
