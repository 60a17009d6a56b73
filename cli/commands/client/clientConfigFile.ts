/**
 * Reading another program's configuration file without being steered by what is at its path: no
 * symbolic link is followed (at the file, or for a folder of another user on the way), only a regular
 * file is read, from the descriptor that was checked, and its identity is kept so a change made while
 * bridge merges it is noticed before bridge replaces it.
 */
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readFileSync,
  realpathSync,
  type Stats,
} from 'node:fs'
import { dirname } from 'node:path'

export type OwnFile =
  | { ok: true; text: string; stat: Stats }
  | { ok: true; text: undefined; stat: undefined }
  | { ok: false; message: string }

const uid = (): number | undefined => (typeof process.getuid === 'function' ? process.getuid() : undefined)

/** The nearest folder of `path` that exists, with its links resolved. */
function existingFolder(path: string): string | undefined {
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    try {
      return realpathSync(dir)
    } catch {
      if (dirname(dir) === dir) return undefined
    }
  }
}

/** The file's text, or no text when there is no file; refuses a link, a non-file and another user's. */
export function readOwnFile(path: string): OwnFile {
  const me = uid()
  const folder = existingFolder(path)
  if (folder !== undefined && me !== undefined) {
    const owner = lstatSync(folder).uid
    if (owner !== me && owner !== 0)
      return { ok: false, message: `${folder} belongs to another user, so bridge writes nothing there` }
  }
  let before: Stats
  try {
    before = lstatSync(path)
  } catch {
    return { ok: true, text: undefined, stat: undefined }
  }
  if (before.isSymbolicLink())
    return {
      ok: false,
      message: `${path} is a symbolic link; bridge neither reads nor writes another program's file through a link, so it was left as it is`,
    }
  if (!before.isFile()) return { ok: false, message: `${path} is not a regular file; left as it is` }
  if (me !== undefined && before.uid !== me)
    return { ok: false, message: `${path} belongs to another user; left as it is` }
  let fd: number
  try {
    // O_NOFOLLOW: a link put there since the look above is not followed; O_NONBLOCK: nor is a FIFO waited on.
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  } catch {
    return { ok: false, message: `${path} could not be opened; left as it is` }
  }
  try {
    const stat = fstatSync(fd)
    if (!stat.isFile() || stat.ino !== before.ino || stat.dev !== before.dev)
      return { ok: false, message: `${path} changed while bridge was reading it; left as it is` }
    return { ok: true, text: readFileSync(fd, 'utf8'), stat }
  } finally {
    closeSync(fd)
  }
}

/** True when the file at `path` is still the one read (or still absent, when none was). */
export function unchangedSince(path: string, read: Stats | undefined): boolean {
  let now: Stats
  try {
    now = lstatSync(path)
  } catch {
    return read === undefined
  }
  if (read === undefined) return false
  return (
    now.ino === read.ino && now.dev === read.dev && now.size === read.size && now.mtimeMs === read.mtimeMs
  )
}
