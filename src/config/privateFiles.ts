/**
 * The config directory holds the secret, the permissions and the logs, so bridge refuses to run on
 * one that someone else could have written: the directory, `extension/`, `extension/adapters/` and
 * the files bridge keeps there must belong to the user running bridge and must not be writable by
 * group or others, and none of the files may be a symbolic link. Each refusal names the path and the
 * fix. Log, audit and pid files are also opened with O_NOFOLLOW (`openNoFollow`), so a link planted
 * after this check is never followed either.
 */
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readFileSync,
  statSync,
  type Stats,
} from 'node:fs'
import { BridgeError, BridgeErrorCode } from '../errors'
import type { BridgePaths } from './paths'

function statOrUndefined(path: string, follow: boolean): Stats | undefined {
  try {
    return follow ? statSync(path) : lstatSync(path)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
}

function refuse(message: string): never {
  throw new BridgeError(BridgeErrorCode.configUnsafe, message)
}

function checkOwnerAndMode(path: string, stats: Stats, kind: 'directory' | 'file'): void {
  const uid = process.getuid?.()
  if (uid !== undefined && stats.uid !== uid)
    refuse(
      `${path} belongs to another user (uid ${stats.uid}; bridge runs as uid ${uid}), so it will not run with it: ` +
        `someone else could change its ${kind === 'directory' ? 'files' : 'contents'}. Fix: remove it, or \`chown ${uid} ${path}\` if it is yours`,
    )
  if ((stats.mode & 0o022) !== 0)
    refuse(
      `${path} is writable by ${stats.mode & 0o002 ? 'other users' : 'its group'} (mode ${(stats.mode & 0o7777).toString(8).padStart(4, '0')}), so bridge will not run with it: ` +
        `someone else could have changed it. Fix: \`chmod ${kind === 'directory' ? '700' : '600'} ${path}\` after checking its contents`,
    )
}

/** Throws a BridgeError (config_unsafe) naming the path and the fix when the config directory is not private. */
export function assertPrivateConfigDir(paths: BridgePaths): void {
  // The directories may be links to a folder of the user's own (dotfiles); what they point at counts.
  for (const dir of [paths.dir, paths.extensionDir, paths.adaptersDir]) {
    const stats = statOrUndefined(dir, true)
    if (stats === undefined) continue
    if (!stats.isDirectory())
      refuse(`${dir} is not a directory. Fix: move it away so bridge can create the folder`)
    checkOwnerAndMode(dir, stats, 'directory')
  }
  const files = [
    paths.configFile,
    `${paths.configFile}.bak`,
    paths.authFile,
    paths.clientsFile,
    paths.serverLog,
    `${paths.serverLog}.1`,
    paths.auditLog,
    `${paths.auditLog}.1`,
    paths.pidFile,
  ]
  for (const file of files) {
    const stats = statOrUndefined(file, false)
    if (stats === undefined) continue
    if (stats.isSymbolicLink())
      refuse(
        `${file} is a symbolic link; bridge never follows links for its own files. Fix: remove it (\`rm ${file}\`)`,
      )
    checkOwnerAndMode(file, stats, 'file')
  }
}

/**
 * Opens `path` without following a symbolic link (O_NOFOLLOW): `flags` as for fs.openSync ('a' or 'r').
 * A link there is refused with a message naming the path and the fix.
 */
export function openNoFollow(path: string, flags: 'a' | 'r', mode = 0o600): number {
  const base =
    flags === 'a' ? constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT : constants.O_RDONLY
  try {
    return openSync(path, base | constants.O_NOFOLLOW, mode)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP')
      refuse(
        `${path} is a symbolic link; bridge never follows links for its own files. Fix: remove it (\`rm ${path}\`)`,
      )
    throw error
  }
}

/** The whole file as UTF-8, read without following a symbolic link (see `openNoFollow`). */
export function readFileNoFollow(path: string): string {
  const fd = openNoFollow(path, 'r')
  try {
    return readFileSync(fd, 'utf8')
  } finally {
    closeSync(fd)
  }
}

/**
 * The whole file as UTF-8, read only when it is private: not a link (O_NOFOLLOW), owned by this user
 * and not writable by group or others, checked on the open descriptor (so a file swapped in after a
 * check is not read either). For files whose contents grant access (clients.json), which the daemon
 * re-reads while it runs. Throws BridgeError (config_unsafe) naming the path and the fix.
 */
export function readPrivateFile(path: string): string {
  const fd = openNoFollow(path, 'r')
  try {
    checkOwnerAndMode(path, fstatSync(fd), 'file')
    return readFileSync(fd, 'utf8')
  } finally {
    closeSync(fd)
  }
}

/** Whether anything (a link included, dangling or not) is at `path`. */
export function existsNoFollow(path: string): boolean {
  return statOrUndefined(path, false) !== undefined
}
