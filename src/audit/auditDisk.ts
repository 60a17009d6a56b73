/**
 * The verifiable audit log as it lies on disk, one tree across the rotated files: the leaf hashes of
 * the entries rotation has dropped (`audit.hashes`, 32 bytes each, oldest first), then the lines of
 * `audit.log.1`, then those of `audit.log`. Each entry line is the canonical JSON of its entry, and
 * its leaf is SHA-256(0x00 || the line's bytes). Signed checkpoints are kept beside them, one JSON
 * line each, in `audit.checkpoints` (and `audit.checkpoints.1`, rotated with the log).
 */
import { closeSync, fdatasyncSync, ftruncateSync, readFile, readFileSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { openNoFollow } from '../config/privateFiles'
import { isAuditCheckpoint, type AuditCheckpoint } from '../protocol/auditProof'
import { HASH_BYTES, LeafHashes, TreeFrontier, leafHashOf, type ChunkLeaves } from './merkleTree'

export const AUDIT_LOG_FILE = 'audit.log'
export const AUDIT_HASHES_FILE = 'audit.hashes'
export const AUDIT_CHECKPOINTS_FILE = 'audit.checkpoints'

/** One retained file's part of the tree. */
export interface AuditFilePart {
  /** `audit.log.1` or `audit.log`. */
  name: string
  /** Leaf index of its first entry. */
  firstLeaf: number
  /** 1-based line numbers of its entries, in order (blank lines are not entries). */
  lineNumbers: number[]
}

export interface AuditTreeOnDisk {
  leaves: LeafHashes
  /** Leaves that come from audit.hashes (entries rotation dropped). */
  rotatedOut: number
  parts: AuditFilePart[]
  /**
   * Hashes at the end of audit.hashes that repeat audit.log.1's entries: left by a crash between
   * saving them and the rename that drops the file. They are not counted in the tree.
   */
  repeatedTail: number
  /** Bytes at the end of audit.hashes that are not a whole hash. */
  strayBytes: number
  /** The leaf hashes of a chunk of `leaves`, from the bytes this read found (for a compact tree's proofs). */
  leavesOf: ChunkLeaves
}

/** A retained file's entry: where it is and its bytes. */
export interface AuditLineVisit {
  index: number
  file: string
  line: number
  bytes: Buffer
}

/** The bytes of audit.hashes, audit.log.1 and audit.log (empty when a file is missing). */
export interface AuditFiles {
  hashes: Buffer
  logs: { name: string; bytes: Buffer }[]
}

const LOG_NAMES = [`${AUDIT_LOG_FILE}.1`, AUDIT_LOG_FILE]

/**
 * Reads the whole tree from `dir` into `into` (a full tree unless a compact one is given); `visit`
 * sees every retained entry line (for `bridge audit verify`).
 */
export function readAuditTree(
  dir: string,
  visit?: (entry: AuditLineVisit) => void,
  into = new LeafHashes(),
): AuditTreeOnDisk {
  const files: AuditFiles = {
    hashes: readOrEmpty(join(dir, AUDIT_HASHES_FILE)),
    logs: LOG_NAMES.map((name) => ({ name, bytes: readOrEmpty(join(dir, name)) })),
  }
  const build = buildTree(files, into, visit)
  for (let step = build.next(); ; step = build.next()) if (step.done) return step.value
}

/**
 * The bytes of the files, read by the thread pool (the event loop goes on meanwhile). The files are
 * read one after the other, so the daemon does not rotate them until this resolves (./auditTree). A
 * last line of audit.log without its newline is a write still under way: it is left for the next read.
 */
export async function readAuditFilesAsync(dir: string): Promise<AuditFiles> {
  const files: AuditFiles = { hashes: await readOrEmptyAsync(join(dir, AUDIT_HASHES_FILE)), logs: [] }
  for (const name of LOG_NAMES) files.logs.push({ name, bytes: await readOrEmptyAsync(join(dir, name)) })
  const current = files.logs.at(-1)!
  current.bytes = current.bytes.subarray(0, current.bytes.lastIndexOf(0x0a) + 1)
  return files
}

/**
 * The tree of files read by readAuditFilesAsync, hashed without holding the event loop: it gives way
 * to other work every few milliseconds. `reuse` is the tree of an earlier read: the leaves it shares
 * with the files' are kept with their subtrees (only the first differing leaf onwards is hashed into
 * the tree again), and it is changed in place into the new tree.
 */
export async function buildAuditTreeAsync(
  files: AuditFiles,
  reuse = new LeafHashes(),
): Promise<AuditTreeOnDisk> {
  const build = buildTree(files, reuse)
  for (let step = build.next(); ; step = build.next()) {
    if (step.done) return step.value
    await new Promise<void>((resolve) => setImmediate(resolve))
  }
}

/** Leaves hashed between two chances for other work to run. */
const LEAVES_PER_SLICE = 2_000

/** One tree from the files' bytes, into `into` (cut back where its leaves stop being the files'); yields between slices. */
function* buildTree(
  files: AuditFiles,
  into: LeafHashes,
  visit?: (entry: AuditLineVisit) => void,
): Generator<void, AuditTreeOnDisk> {
  const { hashes } = files
  const strayBytes = hashes.length % HASH_BYTES
  let rotatedOut = (hashes.length - strayBytes) / HASH_BYTES
  const logs = files.logs.map(({ name, bytes }) => ({ name, lines: splitLines(bytes) }))
  const older = logs[0]!.lines
  let repeatedTail = 0
  if (older.length > 0 && rotatedOut >= older.length) {
    const start = rotatedOut - older.length
    const repeated = older.every((line, i) =>
      leafHashOf(line.bytes).equals(hashes.subarray((start + i) * HASH_BYTES, (start + i + 1) * HASH_BYTES)),
    )
    if (repeated) {
      repeatedTail = older.length
      rotatedOut = start
    }
  }
  // Leaves the earlier tree already holds are compared, not added; from the first that differs on,
  // the tree is cut back and grown. A compact tree keeps the leaf hashes of its last chunk only: an
  // earlier chunk's leaves are compared by the root they hash to, the chunk being cut back whole.
  let index = 0
  let diverged = false
  let pending: Buffer[] = []
  const diverge = (): void => {
    into.truncate(index - pending.length)
    diverged = true
    for (const leaf of pending) into.push(leaf)
    pending = []
  }
  const add = (leaf: Buffer): void => {
    if (!diverged && index >= into.size) diverge()
    if (diverged) into.push(leaf)
    else if (into.keeps(index)) {
      if (!into.at(index).equals(leaf)) {
        diverge()
        into.push(leaf)
      }
    } else {
      pending.push(leaf)
      if (pending.length === into.leavesPerChunk) {
        const chunk = (index + 1 - pending.length) / into.leavesPerChunk
        const frontier = new TreeFrontier()
        for (const p of pending) frontier.append(p)
        if (frontier.root().equals(into.node(into.keptHeight, chunk))) pending = []
        else {
          index++
          diverge()
          return
        }
      }
    }
    index++
  }
  for (let i = 0; i < rotatedOut; i++) {
    add(hashes.subarray(i * HASH_BYTES, (i + 1) * HASH_BYTES))
    if (i % (16 * LEAVES_PER_SLICE) === 0) yield
  }
  const parts: AuditFilePart[] = []
  for (const { name, lines } of logs) {
    const part: AuditFilePart = { name, firstLeaf: index, lineNumbers: [] }
    for (const { bytes, line } of lines) {
      visit?.({ index, file: name, line, bytes })
      add(leafHashOf(bytes))
      part.lineNumbers.push(line)
      if (index % LEAVES_PER_SLICE === 0) yield
    }
    parts.push(part)
  }
  // The files end inside a chunk the tree had whole: it is cut back to the chunk and grown.
  if (pending.length > 0) diverge()
  into.truncate(index)
  const leafOf = (i: number): Buffer => {
    if (i < rotatedOut) return hashes.subarray(i * HASH_BYTES, (i + 1) * HASH_BYTES)
    let at = i - rotatedOut
    for (const { lines } of logs) {
      if (at < lines.length) return leafHashOf(lines[at]!.bytes)
      at -= lines.length
    }
    throw new RangeError(`no leaf ${i}`)
  }
  const leavesOf = (chunk: number): Buffer[] => {
    const first = chunk * into.leavesPerChunk
    const last = Math.min(first + into.leavesPerChunk, index)
    return Array.from({ length: Math.max(0, last - first) }, (_, i) => leafOf(first + i))
  }
  return { leaves: into, rotatedOut, parts, repeatedTail, strayBytes, leavesOf }
}

/** Where leaf `index` is: a retained file and line, or among the dropped entries. */
export function whereIs(tree: AuditTreeOnDisk, index: number): string {
  for (let p = tree.parts.length - 1; p >= 0; p--) {
    const part = tree.parts[p]!
    if (index >= part.firstLeaf && index < part.firstLeaf + part.lineNumbers.length)
      return `${part.name} line ${part.lineNumbers[index - part.firstLeaf]}`
  }
  return index < tree.rotatedOut
    ? 'an entry rotation already dropped (kept as its hash only)'
    : 'not in the log'
}

/**
 * Before rotation drops audit.log.1, its entries' leaf hashes are appended to audit.hashes and put on
 * disk, so the tree keeps them. A crash before the rename that drops the file leaves them twice;
 * readAuditTree sees that and counts them once.
 */
export function saveRotatedOutHashes(dir: string): void {
  const older = splitLines(readOrEmpty(join(dir, `${AUDIT_LOG_FILE}.1`)))
  if (older.length === 0) return
  const bytes = Buffer.concat(older.map(({ bytes }) => leafHashOf(bytes)))
  const path = join(dir, AUDIT_HASHES_FILE)
  // A rotation retried after a failure may find them saved already.
  const saved = readOrEmpty(path)
  if (saved.length >= bytes.length && saved.subarray(saved.length - bytes.length).equals(bytes)) return
  const fd = openNoFollow(path, 'a')
  try {
    let offset = 0
    while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset)
    fdatasyncSync(fd)
  } catch (error) {
    try {
      // No half-saved hashes: the next try starts from the same place.
      ftruncateSync(fd, saved.length)
    } catch {
      // The disk refuses even that; the stray bytes are cut at the next start.
    }
    throw error
  } finally {
    closeSync(fd)
  }
}

/**
 * A line of audit.checkpoints: a signed checkpoint and, for one signed after a group commit, the leaf
 * hashes (hex) of the entries added since the group commit before it: the last `leaves.length` of
 * its tree. They are not signed; the signed root vouches for them once they hash up to it.
 */
export type RecordedCheckpoint = AuditCheckpoint & { leaves?: string[] }

/** The signed checkpoints kept beside the log (audit.checkpoints.1 then audit.checkpoints), and the lines that are none. */
export function readCheckpoints(dir: string): { checkpoints: RecordedCheckpoint[]; unreadable: number } {
  const checkpoints: RecordedCheckpoint[] = []
  let unreadable = 0
  for (const name of [`${AUDIT_CHECKPOINTS_FILE}.1`, AUDIT_CHECKPOINTS_FILE])
    for (const { bytes } of splitLines(readOrEmpty(join(dir, name)))) {
      let value: unknown
      try {
        value = JSON.parse(bytes.toString('utf8'))
      } catch {
        value = undefined
      }
      if (!isAuditCheckpoint(value)) unreadable++
      else {
        const { leaves, ...checkpoint } = value as AuditCheckpoint & { leaves?: unknown }
        const listed =
          Array.isArray(leaves) && leaves.every((l) => typeof l === 'string' && /^[0-9a-f]{64}$/.test(l))
        checkpoints.push(listed ? { ...checkpoint, leaves: leaves as string[] } : checkpoint)
      }
    }
  return { checkpoints, unreadable }
}

function readOrEmpty(path: string): Buffer {
  let fd: number
  try {
    fd = openNoFollow(path, 'r')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return Buffer.alloc(0)
    throw error
  }
  try {
    return readFileSync(fd)
  } finally {
    closeSync(fd)
  }
}

/** As readOrEmpty, the bytes read by the thread pool (the open, without following a link, is quick). */
async function readOrEmptyAsync(path: string): Promise<Buffer> {
  let fd: number
  try {
    fd = openNoFollow(path, 'r')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return Buffer.alloc(0)
    throw error
  }
  try {
    return await new Promise<Buffer>((resolve, reject) =>
      readFile(fd, (error, bytes) => (error ? reject(error) : resolve(bytes))),
    )
  } finally {
    closeSync(fd)
  }
}

/** Non-blank lines with their 1-based numbers; a last line without its newline counts too. */
function splitLines(text: Buffer): { bytes: Buffer; line: number }[] {
  const out: { bytes: Buffer; line: number }[] = []
  let start = 0
  let line = 1
  while (start < text.length) {
    let end = text.indexOf(0x0a, start)
    if (end < 0) end = text.length
    if (end > start) out.push({ bytes: text.subarray(start, end), line })
    start = end + 1
    line++
  }
  return out
}
