/**
 * Crash-safe file writes. The new bytes go to a temp file in the same directory, are fsynced and
 * chmodded, then renamed over the target, and the directory is fsynced so the rename itself survives
 * a power cut. A reader (or a process killed mid-write) sees the old file or the new one, never a
 * torn or empty one.
 */
import { randomBytes } from 'node:crypto'
import {
  chmodSync,
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { BridgeError, BridgeErrorCode } from '../errors'
import { isProcessAlive } from './processAlive'

export const PRIVATE_FILE_MODE = 0o600
export const PRIVATE_DIR_MODE = 0o700

/**
 * Creates `dir` (and parents) if missing and enforces mode 0700 on it. A shared directory (sticky or
 * world-writable, like /tmp) named as the config directory is left as it is: tightening it would
 * break it for everyone else. The files inside are still 0600 and `extension/` is still 0700.
 */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE })
  const mode = statSync(dir).mode
  if ((mode & 0o1002) !== 0) return
  if ((mode & 0o777) !== PRIVATE_DIR_MODE) chmodSync(dir, PRIVATE_DIR_MODE)
}

/**
 * Atomically replaces `path` with `data`, mode 0600. A disk that refuses (full, read-only) throws
 * BridgeError disk_write_failed naming the file and the disk's error; the target is left as it was
 * and no temp file stays behind.
 */
export function atomicWriteFile(
  path: string,
  data: string | Uint8Array,
  mode: number = PRIVATE_FILE_MODE,
): void {
  try {
    replaceFile(path, data, mode)
  } catch (error) {
    throw diskWriteFailed(path, error)
  }
}

/** `could not write <path>: ENOSPC: no space left on device, write` as a BridgeError (kept if it is one). */
export function diskWriteFailed(path: string, error: unknown): BridgeError {
  if (error instanceof BridgeError) return error
  const reason = error instanceof Error ? error.message : String(error)
  return new BridgeError(BridgeErrorCode.diskWriteFailed, `could not write ${path}: ${reason}`, {
    cause: error,
  })
}

function replaceFile(path: string, data: string | Uint8Array, mode: number): void {
  const temp = writeTempBeside(path, data, mode)
  try {
    renameSync(temp, path)
  } catch (error) {
    rmSync(temp, { force: true })
    throw error
  }
  fsyncDir(dirname(path))
}

/**
 * Writes `data` to a new temp file beside `path` (same folder, so a rename or link to `path` is atomic),
 * fsynced and with `mode`, and returns its path. The caller puts it in place or removes it.
 */
export function writeTempBeside(path: string, data: string | Uint8Array, mode: number): string {
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`)
  const fd = openSync(temp, 'wx', mode)
  try {
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data
    let offset = 0
    while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset)
    fsyncSync(fd)
  } catch (error) {
    closeSync(fd)
    rmSync(temp, { force: true })
    throw error
  }
  closeSync(fd)
  try {
    // The umask may have narrowed the mode: set it explicitly.
    chmodSync(temp, mode)
  } catch (error) {
    rmSync(temp, { force: true })
    throw error
  }
  return temp
}

/** Enforces `mode` on an existing file (a user may have created it with their umask). */
export function enforceMode(path: string, mode: number = PRIVATE_FILE_MODE): void {
  if ((statSync(path).mode & 0o777) !== mode) chmodSync(path, mode)
}

/** Makes a rename or link in `dir` survive a power cut (where the filesystem allows). */
export function fsyncDir(dir: string): void {
  let fd: number | undefined
  try {
    fd = openSync(dir, 'r')
    fsyncSync(fd)
  } catch {
    // Some filesystems refuse fsync on directories; the rename is still atomic there.
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

/** Removes temp files a killed writer left beside `path` (only those whose process is gone). */
export function removeStaleTempFiles(path: string): void {
  const dir = dirname(path)
  const prefix = `.${basename(path)}.`
  for (const name of readdirSync(dir)) {
    // Only this file's own temp names (`.<name>.<pid>.<hex>.tmp`): `.config.json.bak.<pid>...` belongs
    // to config.json.bak, whose writer may be alive.
    const own = /^(\d+)\.[0-9a-f]+\.tmp$/.exec(name.startsWith(prefix) ? name.slice(prefix.length) : '')
    if (!own) continue
    const pid = Number(own[1])
    if (pid !== process.pid && isProcessAlive(pid)) continue
    rmSync(join(dir, name), { force: true })
  }
}
