/**
 * A lock file beside a file that several processes change (config.json: the daemon, `bridge config
 * set`, `bridge-plugin build`). Each change is read, modify, write; without the lock two of them at
 * the same moment could each miss the other's edit. The lock is `<file>.lock`, created exclusively and
 * holding the owner's pid; a lock whose owner died is taken over. Held for a few milliseconds at most:
 * commands wait synchronously, the daemon (`withFileLockAsync`) on timers.
 */
import { closeSync, linkSync, openSync, readFileSync, renameSync, rmSync, statSync, writeSync } from 'node:fs'
import { BridgeError, BridgeErrorCode } from '../errors'
import { diskWriteFailed } from './atomicWrite'
import { isProcessAlive } from './processAlive'

export const LOCK_TIMEOUT_MS = 5_000
/** A lock file without a pid yet (its writer was killed between create and write) is dead after this. */
const EMPTY_LOCK_STALE_MS = 2_000

const pause = new Int32Array(new SharedArrayBuffer(4))
const sleepSync = (ms: number) => void Atomics.wait(pause, 0, 0, ms)

/** Runs `fn` while holding `<path>.lock`. Throws BridgeError (config_locked) after `timeoutMs`. */
export function withFileLock<T>(path: string, fn: () => T, timeoutMs: number = LOCK_TIMEOUT_MS): T {
  const lockPath = `${path}.lock`
  const deadline = Date.now() + timeoutMs
  for (let waitMs = 1; !tryAcquire(lockPath, deadline); waitMs = Math.min(waitMs * 2, 50)) sleepSync(waitMs)
  try {
    return fn()
  } finally {
    release(lockPath)
  }
}

/**
 * `withFileLock` for a process that must keep serving while it waits (the daemon): the waits between
 * attempts are timers, so requests and sockets go on being answered. `fn` may be async (the daemon's
 * lock socket is probed and bound under it); the lock is held until it settles.
 */
export async function withFileLockAsync<T>(
  path: string,
  fn: () => T | Promise<T>,
  timeoutMs: number = LOCK_TIMEOUT_MS,
): Promise<T> {
  const lockPath = `${path}.lock`
  const deadline = Date.now() + timeoutMs
  for (let waitMs = 1; !tryAcquire(lockPath, deadline); waitMs = Math.min(waitMs * 2, 50))
    await new Promise((resolve) => setTimeout(resolve, waitMs))
  try {
    return await fn()
  } finally {
    release(lockPath)
  }
}

/** One attempt: true when the lock is ours now; false to wait and try again; throws past `deadline`. */
function tryAcquire(lockPath: string, deadline: number): boolean {
  for (;;) {
    let fd: number
    try {
      fd = openSync(lockPath, 'wx', 0o600)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw diskWriteFailed(lockPath, error)
      fd = -1
    }
    if (fd >= 0) {
      try {
        writeSync(fd, `${process.pid}\n`)
        return true
      } catch (error) {
        // A full disk: an empty lock would stand in everyone's way until it went stale.
        rmSync(lockPath, { force: true })
        throw diskWriteFailed(lockPath, error)
      } finally {
        closeSync(fd)
      }
    }
    const owner = readOwner(lockPath)
    if (owner.stale && takeOver(lockPath, owner.text)) continue
    if (Date.now() >= deadline)
      throw new BridgeError(
        BridgeErrorCode.configLocked,
        `${lockPath} is held by another bridge process${owner.pid ? ` (pid ${owner.pid})` : ''}; ` +
          'try again, or delete that file if no bridge command is running',
      )
    return false
  }
}

function readOwner(lockPath: string): { stale: boolean; pid?: number; text: string } {
  let text: string
  let ageMs: number
  try {
    text = readFileSync(lockPath, 'utf8')
    ageMs = Date.now() - statSync(lockPath).mtimeMs
  } catch {
    // Released in the meantime: the next attempt will most likely get it.
    return { stale: false, text: '' }
  }
  const pid = Number(text.trim())
  if (!Number.isInteger(pid) || pid <= 0) return { stale: ageMs > EMPTY_LOCK_STALE_MS, text }
  // Our own pid cannot be a lock we hold (locks are never nested): a dead process's, with a reused pid.
  return { stale: pid === process.pid || !isProcessAlive(pid), pid, text }
}

/**
 * Moves a dead owner's lock aside (rename is atomic, so only one process wins it), then checks that
 * what it moved is still that dead lock; if a live process had re-created the lock in between, that
 * lock is put back.
 */
function takeOver(lockPath: string, staleText: string): boolean {
  const aside = `${lockPath}.${process.pid}.stale`
  try {
    renameSync(lockPath, aside)
  } catch {
    return true
  }
  const moved = safeRead(aside)
  if (moved === staleText) {
    rmSync(aside, { force: true })
    return true
  }
  try {
    // Put the live lock back, unless a new one exists already (link never replaces a file).
    linkSync(aside, lockPath)
  } catch {
    // That new lock stands.
  }
  rmSync(aside, { force: true })
  return false
}

function release(lockPath: string): void {
  // Only our own lock: after a takeover by mistake, never remove another process's.
  if (safeRead(lockPath).trim() === String(process.pid)) rmSync(lockPath, { force: true })
}

function safeRead(path: string): string {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return ''
  }
}
