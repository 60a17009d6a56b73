/**
 * The daemon's side of the verifiable audit log's tree (RFC 6962): leaf and node hashes with
 * node:crypto (synchronous, so appending an entry never waits), the frontier that gives the root in
 * O(log n) memory, and proof generation over a run of leaf hashes. Verification lives in
 * src/protocol/auditProof.ts, shared with the extension.
 */
import { createHash, hash } from 'node:crypto'

export const HASH_BYTES = 32

// One-shot hashing over a reused input buffer: twice as fast as a createHash object per hash, which
// matters for `bridge audit verify` on a million entries.
let leafInput = Buffer.alloc(1024)
const nodeInput = Buffer.alloc(1 + 2 * HASH_BYTES)
nodeInput[0] = 1

/** SHA-256(0x00 || data). */
export function leafHashOf(data: Uint8Array): Buffer {
  if (data.length + 1 > leafInput.length) leafInput = Buffer.alloc(2 * (data.length + 1))
  leafInput[0] = 0
  leafInput.set(data, 1)
  return hash('sha256', leafInput.subarray(0, data.length + 1), 'buffer')
}

/** SHA-256(0x01 || left || right). */
export function nodeHashOf(left: Uint8Array, right: Uint8Array): Buffer {
  if (left.length !== HASH_BYTES || right.length !== HASH_BYTES)
    return createHash('sha256')
      .update(Buffer.from([1]))
      .update(left)
      .update(right)
      .digest()
  nodeInput.set(left, 1)
  nodeInput.set(right, 1 + HASH_BYTES)
  return hash('sha256', nodeInput, 'buffer')
}

/** SHA-256 of nothing: the root of the empty tree. */
export const EMPTY_ROOT = createHash('sha256').digest()

/**
 * The right edge of the tree: one root per perfect subtree, biggest first (as many as there are
 * 1 bits in the size). Appending merges equal-sized subtrees, one node hash per merge (one per
 * leaf, amortized); the root folds them from the right.
 */
export class TreeFrontier {
  private nodes: Buffer[] = []
  private count = 0

  get size(): number {
    return this.count
  }

  append(leaf: Buffer): void {
    let node = leaf
    let n = this.count
    while (n % 2 === 1) {
      node = nodeHashOf(this.nodes.pop()!, node)
      n = Math.floor(n / 2)
    }
    this.nodes.push(node)
    this.count++
  }

  root(): Buffer {
    if (this.nodes.length === 0) return EMPTY_ROOT
    let root = this.nodes[this.nodes.length - 1]!
    for (let i = this.nodes.length - 2; i >= 0; i--) root = nodeHashOf(this.nodes[i]!, root)
    return root
  }

  /** The frontier whose perfect subtrees' roots are `nodes` (biggest first) over `count` leaves. */
  static of(nodes: Buffer[], count: number): TreeFrontier {
    const frontier = new TreeFrontier()
    frontier.nodes = nodes
    frontier.count = count
    return frontier
  }

  copy(): TreeFrontier {
    const other = new TreeFrontier()
    other.nodes = [...this.nodes]
    other.count = this.count
    return other
  }
}

/** Hashes of one level of the tree in one growing buffer (32 bytes each). */
class HashRow {
  buffer = Buffer.alloc(0)
  count = 0

  push(hash: Uint8Array): void {
    if ((this.count + 1) * HASH_BYTES > this.buffer.length) {
      const next = Buffer.alloc(Math.max(1024, this.buffer.length * 2))
      this.buffer.copy(next, 0, 0, this.count * HASH_BYTES)
      this.buffer = next
    }
    this.buffer.set(hash, this.count * HASH_BYTES)
    this.count++
  }

  at(index: number): Buffer {
    return this.buffer.subarray(index * HASH_BYTES, (index + 1) * HASH_BYTES)
  }
}

/**
 * A whole tree in memory: the leaf hashes and, level by level, the root of every complete subtree
 * (2^l leaves starting at a multiple of 2^l), made as the leaves come (one node hash per leaf,
 * amortized, as the frontier does). Any root or proof is then O(log n) lookups plus the right edge's
 * few hashes, and the tree can be cut back to a size and grown again without redoing the rest.
 */
export class LeafHashes {
  private levels: HashRow[] = [new HashRow()]

  get size(): number {
    return this.levels[0]!.count
  }

  push(leaf: Uint8Array): void {
    this.levels[0]!.push(leaf)
    for (let level = 0; this.levels[level]!.count % 2 === 0; level++) {
      const row = this.levels[level]!
      const parent = nodeHashOf(row.at(row.count - 2), row.at(row.count - 1))
      ;(this.levels[level + 1] ??= new HashRow()).push(parent)
    }
  }

  at(index: number): Buffer {
    return this.levels[0]!.at(index)
  }

  /** Keeps the first `size` leaves (and the subtrees within them); the next push follows them. */
  truncate(size: number): void {
    if (size >= this.size) return
    for (let level = 0; level < this.levels.length; level++)
      this.levels[level]!.count = Math.floor(size / 2 ** level)
  }

  /** The root of the tree of the first `size` leaves. */
  root(size = this.size): Buffer {
    return this.rangeRoot(0, size)
  }

  /** The frontier of the tree of the first `size` leaves (to append other leaves to). */
  frontier(size = this.size): TreeFrontier {
    const nodes: Buffer[] = []
    let start = 0
    for (let level = Math.floor(Math.log2(Math.max(size, 1))); level >= 0; level--)
      if (size - start >= 2 ** level) {
        nodes.push(Buffer.from(this.levels[level]!.at(start / 2 ** level)))
        start += 2 ** level
      }
    return TreeFrontier.of(nodes, size)
  }

  /** MTH(D[start:end]), RFC 6962 section 2.1. */
  rangeRoot(start: number, end: number): Buffer {
    const n = end - start
    if (n === 0) return EMPTY_ROOT
    if (end > this.size) throw new RangeError('no such leaves')
    const level = Math.log2(n)
    if (Number.isInteger(level) && start % n === 0) return this.levels[level]!.at(start / n)
    const k = largestPowerOfTwoBelow(n)
    return nodeHashOf(this.rangeRoot(start, start + k), this.rangeRoot(start + k, end))
  }

  /** PATH(index, D[0:size]): the inclusion proof of leaf `index` in the tree of the first `size` leaves. */
  inclusionProof(index: number, size: number): Buffer[] {
    if (index < 0 || index >= size || size > this.size) throw new RangeError('no such leaf')
    const path: Buffer[] = []
    const walk = (m: number, start: number, end: number): void => {
      const n = end - start
      if (n === 1) return
      const k = largestPowerOfTwoBelow(n)
      if (m < k) {
        walk(m, start, start + k)
        path.push(this.rangeRoot(start + k, end))
      } else {
        walk(m - k, start + k, end)
        path.push(this.rangeRoot(start, start + k))
      }
    }
    walk(index, 0, size)
    return path
  }

  /** PROOF(m, D[0:size]): the consistency proof from the tree of `m` leaves to that of `size`. */
  consistencyProof(m: number, size: number): Buffer[] {
    if (m < 0 || m > size || size > this.size) throw new RangeError('no such tree size')
    const proof: Buffer[] = []
    if (m === 0 || m === size) return proof
    const sub = (m: number, start: number, end: number, complete: boolean): void => {
      const n = end - start
      if (m === n) {
        if (!complete) proof.push(this.rangeRoot(start, end))
        return
      }
      const k = largestPowerOfTwoBelow(n)
      if (m <= k) {
        sub(m, start, start + k, complete)
        proof.push(this.rangeRoot(start + k, end))
      } else {
        sub(m - k, start + k, end, false)
        proof.push(this.rangeRoot(start, start + k))
      }
    }
    sub(m, 0, size, true)
    return proof
  }
}

/** The largest power of two strictly below `n` (n >= 2). */
function largestPowerOfTwoBelow(n: number): number {
  let k = 1
  while (k * 2 < n) k *= 2
  return k
}
