/**
 * Files an agent names by path for browser_upload_file and browser_drop. They come only from the
 * folders the user listed in config.json `uploadFolders` (none by default): the path, once every
 * symlink is resolved, must lie inside one of those folders, also resolved, and be a regular file
 * within the call's byte budget. The file is opened without following a last symlink and measured on
 * the open descriptor, so what is read is what was checked. On Linux the descriptor's own path (from
 * /proc/self/fd) must still lie inside an allowed folder: a folder on the way swapped for a symlink
 * between the check and the open is caught there. A file with more than one name (a hard link) is
 * refused: its other name may lie anywhere.
 */
import { constants, type promises as fsp } from 'node:fs'
import { open, readlink, realpath, stat } from 'node:fs/promises'
import { homedir } from 'node:os'
import { basename, extname, isAbsolute, join, relative, resolve } from 'node:path'
import type { BrowserToolContext, Prepared, UploadFile } from '../tools/define'

const SETTING = 'uploadFolders in config.json (bridge config set uploadFolders.add <folder>)'

/** An `uploadFolders` entry as a path: `~/` is the user's home; the schema allows nothing relative. */
export function resolveUploadFolder(entry: string, home: string = homedir()): string {
  if (entry === '~') return home
  if (entry.startsWith('~/')) return join(home, entry.slice(2))
  return resolve(entry)
}

/** `path` is `folder` itself or lies below it. */
const isInside = (path: string, folder: string): boolean => {
  const rel = relative(folder, path)
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel))
}

/** The allowed folders as given and with their symlinks resolved; folders missing on disk drop out. */
async function allowedFolders(entries: readonly string[]): Promise<{ given: string; real: string }[]> {
  const folders = []
  for (const entry of entries) {
    const given = resolveUploadFolder(entry)
    const real = await realpath(given).catch(() => undefined)
    if (real !== undefined) folders.push({ given, real })
  }
  return folders
}

const MIME_TYPES: Record<string, string> = {
  '.txt': 'text/plain',
  '.md': 'text/markdown',
  '.csv': 'text/csv',
  '.html': 'text/html',
  '.htm': 'text/html',
  '.css': 'text/css',
  '.js': 'text/javascript',
  '.json': 'application/json',
  '.xml': 'application/xml',
  '.pdf': 'application/pdf',
  '.zip': 'application/zip',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.svg': 'image/svg+xml',
  '.mp3': 'audio/mpeg',
  '.mp4': 'video/mp4',
  '.webm': 'video/webm',
}

/** Guessed from the name, as a browser's own file chooser does; unknown kinds are plain bytes. */
export const mimeTypeOf = (name: string): string =>
  MIME_TYPES[extname(name).toLowerCase()] ?? 'application/octet-stream'

/**
 * Reads one file for upload from the allowed folders: `path` is absolute, or relative to an allowed
 * folder (the first one holding it). Refusals name the setting and never what a file holds.
 */
export async function readUploadFile(
  path: string,
  folderEntries: readonly string[],
  maxBytes: number,
): Promise<Prepared<UploadFile>> {
  const shown = JSON.stringify(path.slice(0, 300))
  if (folderEntries.length === 0) return { ok: false, message: `no upload folder is allowed; set ${SETTING}` }
  const folders = await allowedFolders(folderEntries)
  const outside = {
    ok: false,
    message: `${shown} is outside the allowed upload folders (${SETTING})`,
  } as const
  const candidates = isAbsolute(path) ? [resolve(path)] : folders.map((f) => resolve(f.given, path))
  // Nothing on disk is looked at for a path that does not even name a place inside a folder.
  const named = candidates.filter((c) => folders.some((f) => isInside(c, f.given) || isInside(c, f.real)))
  if (named.length === 0) return outside
  let real: string | undefined
  let candidate = ''
  for (const c of named) {
    real = await realpath(c).catch(() => undefined)
    candidate = c
    if (real !== undefined) break
  }
  if (real === undefined) return { ok: false, message: `no file at ${shown} in the allowed upload folders` }
  // A symlink inside a folder that leads out of every folder is refused like a path outside.
  if (!folders.some((f) => isInside(real, f.real))) return outside

  let handle: fsp.FileHandle
  try {
    // O_NOFOLLOW: the path was resolved just now; a symlink put in its place since is not followed.
    // O_NONBLOCK: a FIFO would block the open; it is refused below as not a regular file.
    handle = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  } catch {
    return { ok: false, message: `${shown} could not be opened` }
  }
  try {
    const info = await handle.stat()
    if (!info.isFile()) return { ok: false, message: `${shown} is not a regular file` }
    if (info.nlink > 1)
      return {
        ok: false,
        message: `${shown} has other names (hard links), which may lie outside the allowed folders; copy it instead`,
      }
    // What the kernel opened, named by the kernel: a folder on the way may have been swapped since realpath.
    const opened = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => undefined)
    if (opened !== undefined && !folders.some((f) => isInside(opened, f.real))) return outside
    // The file opened is the one that was resolved (not swapped for another since).
    const checked = await stat(real).catch(() => undefined)
    if (!checked || checked.ino !== info.ino || checked.dev !== info.dev)
      return { ok: false, message: `${shown} changed while it was being read` }
    if (info.size > maxBytes)
      return {
        ok: false,
        message: `${shown} is ${info.size} bytes; only ${maxBytes} more bytes fit in this call`,
      }
    // Read one byte past the budget: a file that grew since it was measured is refused, not cut.
    const buffer = Buffer.alloc(Math.min(info.size, maxBytes) + 1)
    let length = 0
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length)
      if (bytesRead === 0) break
      length += bytesRead
      if (length === buffer.length) break
    }
    if (length > maxBytes)
      return { ok: false, message: `${shown} grew past the ${maxBytes} bytes left in this call` }
    const name = basename(candidate)
    return {
      ok: true,
      value: { name, mimeType: mimeTypeOf(name), base64: buffer.subarray(0, length).toString('base64') },
    }
  } finally {
    await handle.close()
  }
}

/** What the daemon does for built-in tools before they run (src/tools define.ts), with the current folders. */
export function createBrowserToolContext(folders: () => readonly string[]): BrowserToolContext {
  return { readUploadFile: (path, maxBytes) => readUploadFile(path, folders(), maxBytes) }
}
