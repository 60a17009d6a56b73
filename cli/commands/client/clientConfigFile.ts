/**
 * Reading another program's configuration file without being steered by what is at its path: no
 * symbolic link is followed (at the file, or for a folder of another user on the way), only a regular
 * file is read, from the descriptor that was checked, and its identity is kept so a change made while
 * bridge merges it keeps the program's version (replaceIfUnchanged).
 *
 * A hard link is a second name for one file: a link to bridge's auth.json planted at a client's path
 * reads as a regular file of the user's own, and a merge into it leaves the secret in the file the
 * agent's client reads. So a file with more than one name is refused, and so is a file holding a key
 * of bridge's private files (`secret`, `clients`: a copy of one, or a link on a filesystem that does not
 * count links), whatever its name.
 */
import {
  closeSync,
  constants,
  fstatSync,
  linkSync,
  lstatSync,
  openSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  type Stats,
} from 'node:fs'
import { dirname } from 'node:path'
import { diskWriteFailed, fsyncDir, writeTempBeside } from '../../../src/config/atomicWrite'
import { ClientsFile } from '../../../src/config/clients'
import { AuthFile } from '../../../src/config/schema'

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
    if (stat.nlink > 1)
      return {
        ok: false,
        message: `${path} is a hard link (one of ${stat.nlink} names of the same file); bridge neither reads nor writes another program's file that is also another file, so it was left as it is`,
      }
    const text = readFileSync(fd, 'utf8')
    const key = privateKeyIn(text)
    if (key !== undefined)
      return {
        ok: false,
        message: `${path} holds "${key}", a key of bridge's private files; bridge never merges into such a file, so it was left as it is`,
      }
    return { ok: true, text, stat }
  } finally {
    closeSync(fd)
  }
}

/** The top-level keys of bridge's files that hold secrets: auth.json's `secret`, clients.json's `clients`. */
const PRIVATE_KEYS = [...Object.keys(AuthFile.properties), ...Object.keys(ClientsFile.properties)]

/**
 * The first key of bridge's private files at the top of `text`: of a JSON object, or set by a TOML line
 * before the first table (quoted or bare).
 */
export function privateKeyIn(text: string): string | undefined {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    parsed = undefined
  }
  if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed))
    return PRIVATE_KEYS.find((key) => Object.hasOwn(parsed, key))
  for (const line of text.split('\n')) {
    if (/^\s*\[/.test(line)) break
    const key = /^\s*(?:"([^"]*)"|'([^']*)'|([A-Za-z0-9_-]+))\s*=/.exec(line)
    const name = key?.[1] ?? key?.[2] ?? key?.[3]
    if (name !== undefined && PRIVATE_KEYS.includes(name)) return name
  }
  return undefined
}

/** The same file, untouched: same inode, size and modification time. */
function sameFile(now: Stats, read: Stats): boolean {
  return (
    now.ino === read.ino && now.dev === read.dev && now.size === read.size && now.mtimeMs === read.mtimeMs
  )
}

/** A filesystem that has no hard links (FAT, some network shares) answers a link with one of these. */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EMLINK'])

/**
 * Puts `from` at `to` unless something is at `to` already (false then): a link, which never replaces.
 * Where the filesystem has no hard links, a rename once `to` is seen absent (the instant between the
 * look and the rename is not covered there).
 */
function placeUnlessPresent(from: string, to: string): boolean {
  try {
    linkSync(from, to)
    return true
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'EEXIST') return false
    if (code === undefined || !NO_HARD_LINKS.has(code)) throw error
  }
  if (existsWithoutFollowing(to)) return false
  renameSync(from, to)
  return true
}

function existsWithoutFollowing(path: string): boolean {
  try {
    lstatSync(path)
    return true
  } catch {
    return false
  }
}

/** The program's own version back at `path`, unless the program has saved a newer one there since. */
function putBack(taken: string, path: string): void {
  placeUnlessPresent(taken, path)
  rmSync(taken, { force: true })
}

/**
 * Puts `data` at `path` (mode `mode`) only when the file there is still the one read, or there is still
 * none; false, with the program's version in place, otherwise. Nothing is compared and then replaced (a
 * save landing between the two would be lost): the new bytes are written beside the file first, the file
 * read is taken away by one rename and checked, and the new file is linked in its place. A link never
 * replaces, so a file the program saved after the take stays, and a file it changed before the take goes
 * back. A reader in the instant between the rename and the link finds no file, never a torn one.
 */
export function replaceIfUnchanged(
  path: string,
  read: Stats | undefined,
  data: string,
  mode: number,
): boolean {
  try {
    return takeAndLink(path, read, data, mode)
  } catch (error) {
    throw diskWriteFailed(path, error)
  }
}

function takeAndLink(path: string, read: Stats | undefined, data: string, mode: number): boolean {
  const temp = writeTempBeside(path, data, mode)
  const taken = temp.replace(/\.tmp$/, '.taken')
  try {
    if (read === undefined) return placeUnlessPresent(temp, path)
    try {
      renameSync(path, taken)
    } catch {
      return false // gone or replaced by a folder: the program is in the middle of something
    }
    try {
      if (!sameFile(lstatSync(taken), read)) {
        putBack(taken, path)
        return false
      }
      if (!placeUnlessPresent(temp, path)) {
        rmSync(taken, { force: true }) // the program saved a new file since; the backup holds the old one
        return false
      }
    } catch (error) {
      putBack(taken, path)
      throw error
    }
    // Last look: a program writing through a descriptor opened before the take wrote into the taken file.
    if (!sameFile(lstatSync(taken), read)) {
      renameSync(taken, path)
      return false
    }
    rmSync(taken, { force: true })
    return true
  } finally {
    rmSync(temp, { force: true })
    fsyncDir(dirname(path))
  }
}
