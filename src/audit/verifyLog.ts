/**
 * `bridge audit verify`: the verifiable audit log recomputed from the files (the daemon running or
 * not), every signed checkpoint beside it checked (its signature, its key, and that the tree had its
 * root at its size), and, given a checkpoint kept elsewhere, that today's log extends it. The first
 * thing that does not fit is named: the entry (file and line), or that the log was cut or rewritten.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import {
  isAuditCheckpoint,
  toHex,
  verifyCheckpointSignature,
  type AuditCheckpoint,
} from '../protocol/auditProof'
import {
  readAuditTree,
  readCheckpoints,
  whereIs,
  type AuditTreeOnDisk,
  type RecordedCheckpoint,
} from './auditDisk'
import { AUDIT_KEY_FILE, readAuditKey } from './auditKey'

export interface AuditVerifyReport {
  ok: boolean
  /** Entries in the tree (rotated-out ones included). */
  size: number
  root: string
  checkpointsChecked: number
  /** The first problem first; empty when all fits. */
  problems: string[]
  /** The first entry that does not fit, when one can be named (0-based leaf index). */
  firstBadEntry?: { index: number; where: string }
}

type Problem = { at: number; text: string; entry?: number; exact?: boolean }

export async function verifyAuditLog(dir: string, from?: AuditCheckpoint): Promise<AuditVerifyReport> {
  const { checkpoints, unreadable } = readCheckpoints(dir)
  const tree = readAuditTree(dir)
  const size = tree.leaves.size
  const currentKey = existsSync(join(dir, AUDIT_KEY_FILE)) ? readAuditKey(dir)?.publicKey : undefined
  const problems: Problem[] = []

  // The signed checkpoints beside the log, in size order: the last good one and the first bad one
  // bracket the first entry that does not fit.
  let lastGood = 0
  const sorted = [...checkpoints].sort((a, b) => a.size - b.size)
  for (const checkpoint of sorted) {
    if (!(await verifyCheckpointSignature(checkpoint))) {
      problems.push({
        at: checkpoint.size,
        text: `a checkpoint of ${checkpoint.size} entries (${checkpoint.time}) has no valid signature`,
      })
      continue
    }
    if (currentKey !== undefined && checkpoint.key !== currentKey) {
      problems.push({
        at: checkpoint.size,
        text: `a checkpoint of ${checkpoint.size} entries (${checkpoint.time}) is signed by another key than audit.key's`,
      })
      continue
    }
    const problem = misfit(checkpoint, lastGood, tree)
    if (problem) problems.push(problem)
    else lastGood = Math.max(lastGood, checkpoint.size)
  }
  if (unreadable > 0)
    problems.push({
      at: Number.MAX_SAFE_INTEGER,
      text: `${unreadable} line(s) of audit.checkpoints are not checkpoints`,
    })

  // A checkpoint kept elsewhere comes first: it is what the files cannot have rewritten.
  const fromProblems: Problem[] = []
  if (from) {
    if (!isAuditCheckpoint(from) || !(await verifyCheckpointSignature(from)))
      fromProblems.push({ at: -1, text: 'the checkpoint given with --from has no valid signature' })
    else {
      const key = currentKey ?? sorted.at(-1)?.key
      if (key !== undefined && from.key !== key)
        fromProblems.push({
          at: -1,
          text: `new key: the log is signed by another key than the checkpoint of ${from.time} (${from.key.slice(0, 12)}… then, ${key.slice(0, 12)}… now)`,
        })
      const problem = misfit(from, 0, tree)
      if (problem) fromProblems.push({ ...problem, at: -1 })
    }
  }
  const all = [...fromProblems, ...problems.sort((a, b) => a.at - b.at)]
  // An entry named exactly (by a checkpoint's listed leaves) is the first bad one; otherwise the
  // first problem names where its range starts (or where the cut tail was).
  const withEntry = all.find((p) => p.exact) ?? all.find((p) => p.entry !== undefined)
  const root = toHex(tree.leaves.root())
  return {
    ok: all.length === 0,
    size,
    root,
    checkpointsChecked: checkpoints.length + (from ? 1 : 0),
    problems: all.map((p) => p.text),
    ...(withEntry?.entry !== undefined
      ? { firstBadEntry: { index: withEntry.entry, where: whereIs(tree, withEntry.entry) } }
      : {}),
  }
}

/** What is wrong between `checkpoint` and the tree (undefined when it fits), naming the first entry that may be bad. */
function misfit(
  checkpoint: RecordedCheckpoint,
  lastGood: number,
  tree: AuditTreeOnDisk,
): Problem | undefined {
  const size = tree.leaves.size
  if (checkpoint.size <= size && toHex(tree.leaves.root(checkpoint.size)) === checkpoint.root)
    return undefined
  const changed = changedEntry(checkpoint, lastGood, tree)
  if (changed !== undefined && changed < size)
    return {
      at: checkpoint.size,
      entry: changed,
      exact: true,
      text:
        `rewritten: entry #${changed + 1} is not the one the checkpoint signed ${checkpoint.time} covers: ` +
        `it was changed, removed or put in (${whereIs(tree, changed)})`,
    }
  if (checkpoint.size > size)
    return {
      at: checkpoint.size,
      entry: size,
      text:
        `truncated: the log has ${size} entries but a checkpoint signed ${checkpoint.time} covers ${checkpoint.size}; ` +
        `entry #${size + 1} onwards is gone`,
    }
  const first = lastGood
  const span =
    checkpoint.size - first === 1
      ? `entry #${first + 1}`
      : `one of entries #${first + 1} to #${checkpoint.size}`
  return {
    at: checkpoint.size,
    entry: first,
    text:
      `rewritten: the first ${checkpoint.size} entries are not the ones the checkpoint signed ${checkpoint.time} covers; ` +
      `${span} was changed, removed or put in (first: ${whereIs(tree, first)})`,
  }
}

/**
 * The exact entry that differs, from the leaf hashes a checkpoint's line lists (its last ones): they
 * are believed only when, appended to the tree of the entries known good (the first `lastGood`,
 * which a good checkpoint's root vouches for), they give the checkpoint's signed root. Then the first
 * file entry whose hash is not the listed one is the first bad entry.
 */
function changedEntry(
  checkpoint: RecordedCheckpoint,
  lastGood: number,
  tree: AuditTreeOnDisk,
): number | undefined {
  const listed = checkpoint.leaves
  if (!listed?.length) return undefined
  const start = checkpoint.size - listed.length
  if (start < 0 || start > lastGood) return undefined
  const frontier = tree.leaves.frontier(start)
  const hashes = listed.map((hex) => Buffer.from(hex, 'hex'))
  for (const leaf of hashes) frontier.append(leaf)
  if (toHex(frontier.root()) !== checkpoint.root) return undefined
  for (let i = 0; i < hashes.length; i++) {
    const index = start + i
    if (index >= tree.leaves.size || !tree.leaves.at(index).equals(hashes[i]!)) return index
  }
  return undefined
}
