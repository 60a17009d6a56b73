/**
 * The daemon's verifiable audit log. Every line audit.log takes is a leaf of one RFC 6962 tree (see
 * ./auditDisk for how the tree lies across the rotated files); the daemon keeps only the tree's
 * frontier in memory (O(log n)), adds a leaf per line as it is written, and signs a checkpoint (size,
 * root, time) with its Ed25519 key once per group commit, not per call. Checkpoints and proofs asked
 * for over /audit are made from the files as they are now: if anything changed them behind the
 * daemon's back, the answer shows it (the extension, which remembers the last checkpoint it saw,
 * then finds the proof fails), and the daemon goes on from the files as it found them.
 */
import { closeSync, ftruncateSync, renameSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { openNoFollow } from '../config/privateFiles'
import { log } from '../log'
import { toHex, type AuditCheckpoint, type AuditConsistency } from '../protocol/auditProof'
import type { AuditFileHooks } from './auditFile'
import {
  AUDIT_CHECKPOINTS_FILE,
  AUDIT_HASHES_FILE,
  readAuditTree,
  saveRotatedOutHashes,
  type AuditTreeOnDisk,
} from './auditDisk'
import type { AuditSigner } from './auditKey'
import { HASH_BYTES, TreeFrontier, leafHashOf } from './merkleTree'

const logger = log.withTag('audit')

export class AuditTree implements AuditFileHooks {
  private frontier = new TreeFrontier()
  private checkpointsFd: number | undefined
  private checkpointsFailing = false
  private last: AuditCheckpoint | undefined

  constructor(
    private readonly dir: string,
    private readonly signer: AuditSigner,
  ) {}

  /** Builds the frontier from the files (after audit.log's torn tail, if any, was cut). */
  load(): void {
    const disk = this.readDisk()
    this.frontier = disk.frontier
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
    for (const line of lines) this.frontier.append(leafHashOf(Buffer.from(line, 'utf8')))
  }

  syncStarted(): () => void {
    // The checkpoint covers the lines this group commit puts on disk, signed once it has.
    const size = this.frontier.size
    const root = toHex(this.frontier.root())
    return () => this.record(this.signer.checkpoint(size, root))
  }

  rotating(): void {
    saveRotatedOutHashes(this.dir)
    this.closeCheckpoints()
    const path = join(this.dir, AUDIT_CHECKPOINTS_FILE)
    try {
      renameSync(path, `${path}.1`)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') logger.warn(`could not rotate ${path}:`, error)
    }
  }

  /** A checkpoint of the tree the files hold now, signed now. */
  checkpoint(): AuditCheckpoint {
    const disk = this.reconcile()
    return this.sign(disk)
  }

  /** The current checkpoint and the proof that it extends the tree of `from` entries (none when `from` is bigger). */
  consistency(from: number): AuditConsistency {
    const disk = this.reconcile()
    const checkpoint = this.sign(disk)
    const proof = from <= disk.leaves.size ? disk.leaves.consistencyProof(from, disk.leaves.size) : []
    return { checkpoint, from, proof: proof.map(toHex) }
  }

  close(): void {
    this.closeCheckpoints()
  }

  private sign(disk: AuditTreeOnDisk): AuditCheckpoint {
    const checkpoint = this.signer.checkpoint(disk.frontier.size, toHex(disk.frontier.root()))
    this.record(checkpoint)
    return checkpoint
  }

  /** The files' tree; when it is not the one the daemon wrote, the daemon says so and goes on from the files. */
  private reconcile(): AuditTreeOnDisk {
    const disk = this.readDisk()
    const same =
      disk.frontier.size === this.frontier.size && disk.frontier.root().equals(this.frontier.root())
    if (!same) {
      logger.warn(
        `the audit log on disk is not the one bridge wrote (${disk.frontier.size} entries on disk, ` +
          `${this.frontier.size} written): it was changed by something else; checkpoints now sign what the files hold`,
      )
      this.frontier = disk.frontier.copy()
    }
    return disk
  }

  private readDisk(): AuditTreeOnDisk {
    const disk = readAuditTree(this.dir)
    if (disk.repeatedTail > 0)
      logger.info(
        `audit.hashes repeated the ${disk.repeatedTail} entries of audit.log.1 (a crash during rotation)`,
      )
    return disk
  }

  private record(checkpoint: AuditCheckpoint): void {
    this.last = checkpoint
    try {
      this.checkpointsFd ??= openNoFollow(join(this.dir, AUDIT_CHECKPOINTS_FILE), 'a')
      const bytes = Buffer.from(`${JSON.stringify(checkpoint)}\n`)
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
