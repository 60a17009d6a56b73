import {
  closeSync,
  constants,
  fstatSync,
  ftruncateSync,
  openSync,
  readFileSync,
  readSync,
  type PathLike,
} from 'node:fs'
import { chmod, open, rename, stat, type FileHandle } from 'node:fs/promises'
import { join } from 'node:path'
import { log } from '../log'

const logger = log.withTag('audit')

/** Lines kept for a later retry while the disk refuses them; past this the oldest are dropped. */
export const AUDIT_BACKLOG_MAX_LINES = 1000

export interface AuditFileOptions {
  dir: string
  /** Rotate when a write would take the file past this size. */
  rotateBytes: number
}

export interface AuditFileStats {
  /** Lines written and synced. */
  lines: number
  /** Batches written: each is one synchronous-to-disk (O_DSYNC) write. */
  syncs: number
  /** Lines waiting for a retry because the disk refused them. */
  backlog: number
  /** Lines dropped because the backlog was full. */
  dropped: number
}

interface Waiting {
  text: string
  resolve: () => void
  reject: (error: unknown) => void
}

/**
 * The NDJSON disk log: `audit.log` (0600) rotated to `audit.log.1` at the size limit. Group commit:
 * every line that arrives while a batch is being written waits for the next batch, and a batch is one
 * O_DSYNC write (on disk when it returns, like write + fdatasync), so durability costs one sync per
 * batch, not per line. `append` resolves
 * once its line is on disk. A line the disk refused is kept (up to AUDIT_BACKLOG_MAX_LINES) and
 * written before the next batch, so entries recorded while the disk was full reach it when it frees up.
 */
export class AuditFile {
  readonly path: string
  private handle: FileHandle | undefined
  private size = 0
  private waiting: Waiting[] = []
  private backlog: string[] = []
  private flushing: Promise<void> | undefined
  private readonly counts = { lines: 0, syncs: 0, dropped: 0 }

  constructor(private readonly options: AuditFileOptions) {
    this.path = join(options.dir, 'audit.log')
    repairTornTail(this.path)
  }

  /** Appends one line. Rejects when the disk refused it; the line is retried with the next batch. */
  append(line: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ text: `${line}\n`, resolve, reject })
      this.flushing ??= this.drain()
    })
  }

  get stats(): AuditFileStats {
    return { ...this.counts, backlog: this.backlog.length }
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

  /** Writes what is waiting (one last try for the backlog), then closes the file. */
  async close(): Promise<void> {
    if (this.backlog.length > 0 && !this.flushing) this.flushing = this.drain()
    await this.flushing
    await this.handle?.close()
    this.handle = undefined
  }

  private async drain(): Promise<void> {
    while (this.waiting.length > 0 || this.backlog.length > 0) {
      const batch = this.waiting
      this.waiting = []
      const retry = this.backlog
      this.backlog = []
      const text = retry.join('') + batch.map((w) => w.text).join('')
      try {
        await this.write(text)
        this.counts.lines += retry.length + batch.length
        this.counts.syncs++
      } catch (error) {
        this.keepForRetry([...retry, ...batch.map((w) => w.text)])
        for (const waiting of batch) waiting.reject(error)
        // The disk refused: stop here; the next append tries again.
        break
      }
      for (const waiting of batch) waiting.resolve()
    }
    this.flushing = undefined
    // Lines that arrived while the failed batch was being rejected start a new drain.
    if (this.waiting.length > 0) this.flushing = this.drain()
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

  private async write(text: string): Promise<void> {
    const bytes = Buffer.from(text, 'utf8')
    let handle = await this.ensureOpen()
    if (this.size > 0 && this.size + bytes.length > this.options.rotateBytes) {
      await handle.close()
      this.handle = undefined
      await rename(this.path, `${this.path}.1`)
      handle = await this.ensureOpen()
    }
    try {
      let offset = 0
      while (offset < bytes.length) {
        const { bytesWritten } = await handle.write(bytes, offset, bytes.length - offset)
        offset += bytesWritten
      }
      this.size += bytes.length
    } catch (error) {
      // A full disk may have taken part of the batch: cut it off so no torn line stays behind.
      await handle.truncate(this.size).catch(() => undefined)
      // A broken handle is reopened (and its size re-read) on the next write.
      this.handle = undefined
      await handle.close().catch(() => undefined)
      throw error
    }
  }

  private async ensureOpen(): Promise<FileHandle> {
    if (this.handle) return this.handle
    // O_NOFOLLOW: a symbolic link planted as audit.log is refused (ELOOP), never written through.
    // O_DSYNC: each write returns once its data is on disk, as write + fdatasync would, in one
    // request to the thread pool instead of two.
    const handle = await open(
      this.path,
      constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_DSYNC,
      0o600,
    )
    try {
      // An older file may have been created with a looser mode.
      await chmod(this.path, 0o600)
      this.size = (await stat(this.path)).size
    } catch (error) {
      await handle.close().catch(() => undefined)
      throw error
    }
    this.handle = handle
    return handle
  }
}

/**
 * A crash (power cut, full disk) can leave the last line of audit.log half written. That line was
 * never acknowledged (a call answers only after its line is synced), so it is cut off at start-up,
 * and the log says so.
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
