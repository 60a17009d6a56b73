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

/**
 * Hashes of one level of the tree in one growing buffer (32 bytes each): those of indices `first`
 * to `end - 1` (a level below the compact tree's kept height holds only the last chunk's).
 */
class HashRow {
  buffer = Buffer.alloc(0)
  first = 0
  count = 0

  get end(): number {
    return this.first + this.count
  }

  push(hash: Uint8Array): void {
    if ((this.count + 1) * HASH_BYTES > this.buffer.length) {
      const next = Buffer.alloc(Math.max(1024, this.buffer.length * 2))
      this.buffer.copy(next, 0, 0, this.count * HASH_BYTES)
      this.buffer = next
    }
    this.buffer.set(hash, this.count * HASH_BYTES)
    this.count++
  }

  has(index: number): boolean {
    return index >= this.first && index < this.end
  }

  at(index: number): Buffer {
    const i = index - this.first
    return this.buffer.subarray(i * HASH_BYTES, (i + 1) * HASH_BYTES)
  }

  /** Holds nothing, its next hash being that of `index`. */
  restart(index: number): void {
    this.first = index
    this.count = 0
  }
}

/**
 * The leaf hashes of one chunk of a compact tree (chunk `c`: leaves c * 2^keptHeight onwards, as many
 * as there are, up to 2^keptHeight), for the proofs that need the levels below the kept height.
 */
export type ChunkLeaves = (chunk: number) => readonly Uint8Array[]

/** Subtrees below the kept height that one root or proof rebuilt from its chunk's leaves (a proof needs one or two). */
class ChunkTrees {
  private readonly trees = new Map<number, LeafHashes>()

  constructor(
    private readonly chunkSize: number,
    private readonly leavesOf: ChunkLeaves | undefined,
  ) {}

  node(level: number, index: number): Buffer {
    const chunk = Math.floor((index * 2 ** level) / this.chunkSize)
    let tree = this.trees.get(chunk)
    if (!tree) {
      if (!this.leavesOf)
        throw new RangeError('the leaves below the kept levels are needed and were not given')
      tree = new LeafHashes()
      for (const leaf of this.leavesOf(chunk)) tree.push(leaf)
      this.trees.set(chunk, tree)
    }
    return tree.node(level, index - (chunk * this.chunkSize) / 2 ** level)
  }
}

/**
 * A whole tree: the leaf hashes and, level by level, the root of every complete subtree (2^l leaves
 * starting at a multiple of 2^l), made as the leaves come (one node hash per leaf, amortized, as the
 * frontier does). Any root or proof is then O(log n) lookups plus the right edge's few hashes, and
 * the tree can be cut back to a size and grown again without redoing the rest.
 *
 * A compact tree (`keptHeight` h > 0) keeps the levels below h only for its last chunk of 2^h
 * leaves (the one still filling): its memory is 32 bytes per 2^(h-1) leaves, plus one chunk. A root
 * or proof that needs a lower node of an earlier chunk gets that chunk's leaf hashes from a
 * `ChunkLeaves` (the files, read anyway), so a proof is still O(log n) lookups and hashes, plus the
 * 2^h leaves of the one or two chunks its sizes fall in.
 */
export class LeafHashes {
  private levels: HashRow[] = [new HashRow()]
  private readonly chunkSize: number

  constructor(readonly keptHeight = 0) {
    this.chunkSize = 2 ** keptHeight
  }

  get size(): number {
    return this.levels[0]!.end
  }

  /** Leaves in each chunk (1 for a full tree). */
  get leavesPerChunk(): number {
    return this.chunkSize
  }

  push(leaf: Uint8Array): void {
    this.levels[0]!.push(leaf)
    for (let level = 0; this.levels[level]!.end % 2 === 0; level++) {
      const row = this.levels[level]!
      const parent = nodeHashOf(row.at(row.end - 2), row.at(row.end - 1))
      ;(this.levels[level + 1] ??= new HashRow()).push(parent)
    }
    // A chunk is complete: the kept height holds its root; the levels below start the next chunk.
    if (this.keptHeight > 0 && this.size % this.chunkSize === 0)
      for (let level = 0; level < this.keptHeight; level++)
        this.levels[level]!.restart(this.size / 2 ** level)
  }

  /** Bytes its hashes take in memory (the rows' buffers, room to grow included). */
  get keptBytes(): number {
    return this.levels.reduce((sum, row) => sum + row.buffer.length, 0)
  }

  /** Whether the hash of leaf `index` is in memory (always in a full tree; in the last chunk in a compact one). */
  keeps(index: number): boolean {
    return this.levels[0]!.has(index)
  }

  at(index: number): Buffer {
    if (!this.keeps(index)) throw new RangeError(`leaf ${index} is not kept`)
    return this.levels[0]!.at(index)
  }

  /** The root of the complete subtree of 2^level leaves starting at index * 2^level (kept, or from `chunks`). */
  node(level: number, index: number, chunks?: ChunkTrees): Buffer {
    const row = this.levels[level]
    if (row?.has(index)) return row.at(index)
    if (level < this.keptHeight && (index + 1) * 2 ** level <= this.size && chunks)
      return chunks.node(level, index)
    throw new RangeError(`no node ${index} at level ${level}`)
  }

  /**
   * Keeps the first `size` leaves (and the subtrees within them); the next push follows them. A
   * compact tree cut inside an earlier chunk needs that chunk's leaves.
   */
  truncate(size: number, leavesOf?: ChunkLeaves): void {
    if (size >= this.size) return
    const tailStart = this.levels[0]!.first
    const cut = size >= tailStart ? size : size - (size % this.chunkSize)
    const refill = size - cut > 0 ? leavesOf?.(cut / this.chunkSize).slice(0, size - cut) : []
    if (!refill) throw new RangeError('the leaves below the kept levels are needed and were not given')
    for (let level = 0; level < this.levels.length; level++) {
      const row = this.levels[level]!
      const end = Math.floor(cut / 2 ** level)
      if (end >= row.first) row.count = end - row.first
      else row.restart(end)
    }
    for (const leaf of refill) this.push(leaf)
  }

  /** The root of the tree of the first `size` leaves. */
  root(size = this.size, leavesOf?: ChunkLeaves): Buffer {
    return this.rangeRoot(0, size, leavesOf)
  }

  /** The frontier of the tree of the first `size` leaves (to append other leaves to). */
  frontier(size = this.size, leavesOf?: ChunkLeaves): TreeFrontier {
    const chunks = this.chunks(leavesOf)
    const nodes: Buffer[] = []
    let start = 0
    for (let level = Math.floor(Math.log2(Math.max(size, 1))); level >= 0; level--)
      if (size - start >= 2 ** level) {
        nodes.push(Buffer.from(this.node(level, start / 2 ** level, chunks)))
        start += 2 ** level
      }
    return TreeFrontier.of(nodes, size)
  }

  /** MTH(D[start:end]), RFC 6962 section 2.1. */
  rangeRoot(start: number, end: number, leavesOf?: ChunkLeaves): Buffer {
    return this.range(start, end, this.chunks(leavesOf))
  }

  /** PATH(index, D[0:size]): the inclusion proof of leaf `index` in the tree of the first `size` leaves. */
  inclusionProof(index: number, size: number, leavesOf?: ChunkLeaves): Buffer[] {
    if (index < 0 || index >= size || size > this.size) throw new RangeError('no such leaf')
    const chunks = this.chunks(leavesOf)
    const path: Buffer[] = []
    const walk = (m: number, start: number, end: number): void => {
      const n = end - start
      if (n === 1) return
      const k = largestPowerOfTwoBelow(n)
      if (m < k) {
        walk(m, start, start + k)
        path.push(this.range(start + k, end, chunks))
      } else {
        walk(m - k, start + k, end)
        path.push(this.range(start, start + k, chunks))
      }
    }
    walk(index, 0, size)
    return path
  }

  /** PROOF(m, D[0:size]): the consistency proof from the tree of `m` leaves to that of `size`. */
  consistencyProof(m: number, size: number, leavesOf?: ChunkLeaves): Buffer[] {
    if (m < 0 || m > size || size > this.size) throw new RangeError('no such tree size')
    const chunks = this.chunks(leavesOf)
    const proof: Buffer[] = []
    if (m === 0 || m === size) return proof
    const sub = (m: number, start: number, end: number, complete: boolean): void => {
      const n = end - start
      if (m === n) {
        if (!complete) proof.push(this.range(start, end, chunks))
        return
      }
      const k = largestPowerOfTwoBelow(n)
      if (m <= k) {
        sub(m, start, start + k, complete)
        proof.push(this.range(start + k, end, chunks))
      } else {
        sub(m - k, start + k, end, false)
        proof.push(this.range(start, start + k, chunks))
      }
    }
    sub(m, 0, size, true)
    return proof
  }

  private chunks(leavesOf: ChunkLeaves | undefined): ChunkTrees | undefined {
    return this.keptHeight > 0 ? new ChunkTrees(this.chunkSize, leavesOf) : undefined
  }

  private range(start: number, end: number, chunks: ChunkTrees | undefined): Buffer {
    const n = end - start
    if (n === 0) return EMPTY_ROOT
    if (end > this.size) throw new RangeError('no such leaves')
    const level = Math.log2(n)
    if (Number.isInteger(level) && start % n === 0) return this.node(level, start / n, chunks)
    const k = largestPowerOfTwoBelow(n)
    return nodeHashOf(this.range(start, start + k, chunks), this.range(start + k, end, chunks))
  }
}

/** The largest power of two strictly below `n` (n >= 2). */
function largestPowerOfTwoBelow(n: number): number {
  let k = 1
  while (k * 2 < n) k *= 2
  return k
}
