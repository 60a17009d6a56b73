/**
 * The daemon's verifiable audit log. Every line audit.log takes is a leaf of one RFC 6962 tree (see
 * ./auditDisk for how the tree lies across the rotated files); the daemon keeps only the tree's
 * frontier in memory (O(log n)), adds a leaf per line as it is written, and signs a checkpoint (size,
 * root, time) with its Ed25519 key after a group commit: at once when none was signed in the last
 * `signWindowMs`, else once at the end of that window for every group committed meanwhile (a signature
 * costs about ten times the rest of an entry's hashing, so a busy daemon signs at most once a window). Checkpoints and proofs asked
 * for over /audit are made from the files as they are now: if anything changed them behind the
 * daemon's back, the answer shows it (the extension, which remembers the last checkpoint it saw,
 * then finds the proof fails), and the daemon goes on from the files as it found them.
 */
import { closeSync, ftruncateSync, renameSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { openNoFollow } from '../config/privateFiles'
import { log } from '../log'
import { toHex, type AuditChange, type AuditCheckpoint, type AuditConsistency } from '../protocol/auditProof'
import type { AuditFileHooks } from './auditFile'
import {
  AUDIT_CHECKPOINTS_FILE,
  AUDIT_HASHES_FILE,
  buildAuditTreeAsync,
  readAuditFilesAsync,
  readAuditTree,
  saveRotatedOutHashes,
  type AuditTreeOnDisk,
  type RecordedCheckpoint,
} from './auditDisk'
import type { AuditSigner } from './auditKey'
import { HASH_BYTES, LeafHashes, TreeFrontier, leafHashOf } from './merkleTree'

const logger = log.withTag('audit')

/**
 * The lowest level of the files' tree the daemon keeps for every entry: the roots of chunks of 2^8
 * entries. A proof needs the levels below only inside the chunk of the old checkpoint's size; they
 * are hashed again from the bytes the witness check reads anyway.
 */
export const AUDIT_KEPT_HEIGHT = 8

/** The shortest time between two checkpoints signed after group commits (an /audit read signs at once). */
export const AUDIT_SIGN_WINDOW_MS = 1000

/** Group commits not signed yet: the tree as the last one left it and the leaves added since the last checkpoint. */
interface Unsigned {
  frontier: TreeFrontier
  leaves: Buffer[]
}

export class AuditTree implements AuditFileHooks {
  private frontier = new TreeFrontier()
  private checkpointsFd: number | undefined
  private checkpointsFailing = false
  /**
   * The files' tree as the last read found it (kept so that the next read grows only what changed),
   * compact: the levels from AUDIT_KEPT_HEIGHT up, so 32 bytes per 2^(h-1) entries.
   */
  private onDisk = new LeafHashes(AUDIT_KEPT_HEIGHT)
  private reading: Promise<void> = Promise.resolve()
  /** Leaf hashes written since the last group commit's checkpoint. */
  private unrecorded: Buffer[] = []
  private last: AuditCheckpoint | undefined
  private unsigned: Unsigned | undefined
  private lastSignedAt = -Infinity
  private signTimer: ReturnType<typeof setTimeout> | undefined
  private closed = false
  /** Reads of the files under way: the daemon does not rotate them meanwhile. */
  private filesBeingRead = 0
  /** The last time a read found the files not as the daemon wrote them (told in every consistency answer). */
  private changedOutside: AuditChange | undefined

  constructor(
    private readonly dir: string,
    private readonly signer: AuditSigner,
    private readonly signWindowMs = AUDIT_SIGN_WINDOW_MS,
  ) {}

  /** Builds the frontier from the files (after audit.log's torn tail, if any, was cut). */
  load(): void {
    const disk = this.readDisk()
    this.frontier = disk.leaves.frontier()
    this.onDisk = disk.leaves
    if (disk.repeatedTail > 0 || disk.strayBytes > 0) {
      // Cut what a crash during rotation left, so the next rotation appends after the right hash.
      const fd = openNoFollow(join(this.dir, AUDIT_HASHES_FILE), 'a')
      try {
        ftruncateSync(fd, disk.rotatedOut * HASH_BYTES)
      } finally {
        closeSync(fd)
      }
    }
  }

  get size(): number {
    return this.frontier.size
  }

  /** The last checkpoint signed (after a group commit or an /audit read). */
  get latest(): AuditCheckpoint | undefined {
    return this.last
  }

  written(lines: readonly string[]): void {
    for (const line of lines) {
      const leaf = leafHashOf(Buffer.from(line, 'utf8'))
      this.frontier.append(leaf)
      this.unrecorded.push(leaf)
    }
  }

  syncStarted(): () => void {
    // The checkpoint covers the lines this group commit puts on disk, signed once it has (and once
    // the window since the last signature is over). Its line in audit.checkpoints also lists the leaf
    // hashes added since the last checkpoint, so that `bridge audit verify` can name the very entry
    // that changed, not only the group it was in.
    const frontier = this.frontier.copy()
    const leaves = this.unrecorded.splice(0)
    return () => this.committed(frontier, leaves)
  }

  /** Signs the group commits not signed yet, now (before a rotation, at shutdown, when a caller flushes). */
  signCommitted(): void {
    if (this.signTimer !== undefined) clearTimeout(this.signTimer)
    this.signTimer = undefined
    const unsigned = this.unsigned
    if (!unsigned) return
    this.unsigned = undefined
    this.lastSignedAt = performance.now()
    const { frontier, leaves } = unsigned
    this.record(this.signer.checkpoint(frontier.size, toHex(frontier.root())), leaves.map(toHex))
  }

  private committed(frontier: TreeFrontier, leaves: Buffer[]): void {
    this.unsigned = { frontier, leaves: this.unsigned ? [...this.unsigned.leaves, ...leaves] : leaves }
    const wait = this.lastSignedAt + this.signWindowMs - performance.now()
    if (this.closed || wait <= 0) this.signCommitted()
    else this.signTimer ??= setTimeout(() => this.signCommitted(), wait).unref()
  }

  rotating(): void {
    // The group commits of the file rotated out are signed into its checkpoints file.
    this.signCommitted()
    saveRotatedOutHashes(this.dir)
    this.closeCheckpoints()
    const path = join(this.dir, AUDIT_CHECKPOINTS_FILE)
    try {
      renameSync(path, `${path}.1`)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') logger.warn(`could not rotate ${path}:`, error)
    }
  }

  mayRotate(): boolean {
    return this.filesBeingRead === 0
  }

  /** A checkpoint of the tree the files hold now, signed now. */
  checkpoint(): Promise<AuditCheckpoint> {
    return this.fromFiles(({ leaves }) => this.sign(leaves))
  }

  /** The current checkpoint and the proof that it extends the tree of `from` entries (none when `from` is bigger). */
  consistency(from: number): Promise<AuditConsistency> {
    return this.fromFiles(({ leaves, leavesOf }) => {
      const checkpoint = this.sign(leaves)
      const proof = from <= leaves.size ? leaves.consistencyProof(from, leaves.size, leavesOf) : []
      const changed = this.changedOutside
      return { checkpoint, from, proof: proof.map(toHex), ...(changed ? { changed } : {}) }
    })
  }

  /** Bytes the daemon keeps for the files' tree (its compact levels; for the benchmark and tests). */
  get keptBytes(): number {
    return this.onDisk.keptBytes
  }

  close(): void {
    this.signCommitted()
    this.closed = true
    this.closeCheckpoints()
  }

  private sign(leaves: LeafHashes): AuditCheckpoint {
    const checkpoint = this.signer.checkpoint(leaves.size, toHex(leaves.root()))
    this.record(checkpoint)
    return checkpoint
  }

  /**
   * Reads the files' tree off the event loop's back (./auditDisk readAuditFilesAsync: the thread pool
   * reads, the hashing gives way every few milliseconds, and the leaves the last read saw are
   * compared rather than hashed into the tree again), then answers from it. One read at a time: each
   * changes the kept tree in place.
   */
  private fromFiles<T>(answer: (disk: AuditTreeOnDisk) => T): Promise<T> {
    const run = this.reading.then(async () => answer(await this.reconcile()))
    this.reading = run.then(
      () => undefined,
      () => undefined,
    )
    return run
  }

  /** The files' tree; when it is not the one the daemon wrote, the daemon says so and goes on from the files. */
  private async reconcile(): Promise<AuditTreeOnDisk> {
    // Lines written while the files are read may or may not be in what is read: the files are the
    // daemon's when they hold what it had written when the read began, and no more than it has now.
    const before = { size: this.frontier.size, root: this.frontier.root() }
    // A rotation between two of the files' reads would show a tree that never was (audit.log.1's
    // entries missing or counted twice): the daemon holds its rotations until the bytes are read.
    this.filesBeingRead++
    let files
    try {
      files = await readAuditFilesAsync(this.dir)
    } finally {
      this.filesBeingRead--
    }
    const disk = await buildAuditTreeAsync(files, this.onDisk)
    this.noteRepeatedTail(disk)
    const { leaves, leavesOf } = disk
    this.onDisk = leaves
    const same =
      leaves.size >= before.size &&
      leaves.size <= this.frontier.size &&
      leaves.root(before.size, leavesOf).equals(before.root)
    if (!same) {
      logger.warn(
        `the audit log on disk is not the one bridge wrote (${leaves.size} entries on disk, ` +
          `${this.frontier.size} written): it was changed by something else; checkpoints now sign what the files hold`,
      )
      this.changedOutside = {
        at: new Date().toISOString(),
        entriesOnDisk: leaves.size,
        entriesWritten: this.frontier.size,
      }
      this.frontier = leaves.frontier()
      this.unrecorded = []
      // Group commits of the tree the daemon wrote are not signed now: the files no longer hold it.
      if (this.signTimer !== undefined) clearTimeout(this.signTimer)
      this.signTimer = undefined
      this.unsigned = undefined
    }
    return disk
  }

  private readDisk(): AuditTreeOnDisk {
    const disk = readAuditTree(this.dir, undefined, new LeafHashes(AUDIT_KEPT_HEIGHT))
    this.noteRepeatedTail(disk)
    return disk
  }

  private noteRepeatedTail(disk: AuditTreeOnDisk): void {
    if (disk.repeatedTail > 0)
      logger.info(
        `audit.hashes repeated the ${disk.repeatedTail} entries of audit.log.1 (a crash during rotation)`,
      )
  }

  private record(checkpoint: AuditCheckpoint, leaves?: string[]): void {
    this.last = checkpoint
    try {
      this.checkpointsFd ??= openNoFollow(join(this.dir, AUDIT_CHECKPOINTS_FILE), 'a')
      const line: RecordedCheckpoint = leaves?.length ? { ...checkpoint, leaves } : checkpoint
      const bytes = Buffer.from(`${JSON.stringify(line)}\n`)
      let offset = 0
      while (offset < bytes.length)
        offset += writeSync(this.checkpointsFd, bytes, offset, bytes.length - offset)
      this.checkpointsFailing = false
    } catch (error) {
      this.closeCheckpoints()
      if (!this.checkpointsFailing) logger.warn('could not write audit.checkpoints:', error)
      this.checkpointsFailing = true
    }
  }

  private closeCheckpoints(): void {
    if (this.checkpointsFd === undefined) return
    try {
      closeSync(this.checkpointsFd)
    } catch {
      // Already unusable.
    }
    this.checkpointsFd = undefined
  }
}
