import { constants } from 'node:fs'
import { chmod, open, rename, stat, type FileHandle } from 'node:fs/promises'
import { join } from 'node:path'

export interface AuditFileOptions {
  dir: string
  /** Rotate when a write would take the file past this size. */
  rotateBytes: number
}

/**
 * The NDJSON disk log: `audit.log` (0600) rotated to `audit.log.1` at the size limit. Writes are
 * serialized and each resolves once the line is written and synced to disk.
 */
export class AuditFile {
  readonly path: string
  private handle: FileHandle | undefined
  private size = 0
  private queue: Promise<void> = Promise.resolve()

  constructor(private readonly options: AuditFileOptions) {
    this.path = join(options.dir, 'audit.log')
  }

  /** Appends one line. Rejects when the disk refused it; the next append tries again. */
  append(line: string): Promise<void> {
    const run = this.queue.then(() => this.write(`${line}\n`))
    this.queue = run.catch(() => undefined)
    return run
  }

  async close(): Promise<void> {
    await this.queue
    await this.handle?.close()
    this.handle = undefined
  }

  private async write(text: string): Promise<void> {
    const bytes = Buffer.byteLength(text)
    let handle = await this.ensureOpen()
    if (this.size > 0 && this.size + bytes > this.options.rotateBytes) {
      await handle.close()
      this.handle = undefined
      await rename(this.path, `${this.path}.1`)
      handle = await this.ensureOpen()
    }
    try {
      await handle.write(text)
      await handle.datasync()
      this.size += bytes
    } catch (error) {
      // A broken handle is reopened (and its size re-read) on the next write.
      this.handle = undefined
      await handle.close().catch(() => undefined)
      throw error
    }
  }

  private async ensureOpen(): Promise<FileHandle> {
    if (this.handle) return this.handle
    // O_NOFOLLOW: a symbolic link planted as audit.log is refused (ELOOP), never written through.
    const handle = await open(
      this.path,
      constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW,
      0o600,
    )
    // An older file may have been created with a looser mode.
    await chmod(this.path, 0o600)
    this.size = (await stat(this.path)).size
    this.handle = handle
    return handle
  }
}
