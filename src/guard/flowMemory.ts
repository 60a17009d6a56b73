/**
 * One client's fingerprints: hash -> the origins it came from, in memory only, bounded in time and
 * size by two generations. New hashes go to the current one; when it is older than half the time
 * to keep or holds half the room, it becomes the previous one and the old previous one is dropped.
 * So a hash lives between half and all of `keepMs`, and a client never holds more than `maxEntries`.
 */
import type { FingerprintKind } from './fingerprints'

export interface MemoryLimits {
  keepMs: number
  maxEntries: number
  now?: () => number
}

/** Kinds as bits, so a hash remembers what it was (the audit says the kind of match). */
const KIND_BIT: Record<FingerprintKind, number> = { token: 1, email: 2, number: 4, text: 8 }

/**
 * Hash -> origins, open addressing over typed arrays (no object per entry: a megabyte of text leaves
 * tens of thousands of hashes). A value is an origin's number + 1, or -(list + 1) for several origins.
 */
class HashTable {
  private hi: Int32Array
  private lo: Int32Array
  private values: Int32Array
  private readonly lists: number[][] = []
  size = 0

  constructor(capacity = 1024) {
    this.hi = new Int32Array(capacity)
    this.lo = new Int32Array(capacity)
    this.values = new Int32Array(capacity)
  }

  private slot(hi: number, lo: number): number {
    const mask = this.values.length - 1
    let at = (hi ^ Math.imul(lo, 0x9e3779b1)) & mask
    while (this.values[at] !== 0 && (this.hi[at] !== hi || this.lo[at] !== lo)) at = (at + 1) & mask
    return at
  }

  /** The origins' numbers kept for a key, or undefined. */
  get(hi: number, lo: number): readonly number[] | undefined {
    const value = this.values[this.slot(hi, lo)]!
    if (value === 0) return undefined
    return value > 0 ? [value - 1] : this.lists[-value - 1]
  }

  add(hi: number, lo: number, ids: readonly number[]): void {
    if ((this.size + 1) * 2 > this.values.length) this.grow()
    const at = this.slot(hi, lo)
    const value = this.values[at]!
    if (value === 0) {
      this.hi[at] = hi
      this.lo[at] = lo
      this.size++
      if (ids.length === 1) this.values[at] = ids[0]! + 1
      else this.values[at] = -this.lists.push(ids.slice())
      return
    }
    const list = value > 0 ? [value - 1] : this.lists[-value - 1]!
    for (const id of ids) if (!list.includes(id)) list.push(id)
    if (value > 0 && list.length > 1) this.values[at] = -this.lists.push(list)
  }

  private grow(): void {
    const { hi, lo, values } = this
    this.hi = new Int32Array(values.length * 2)
    this.lo = new Int32Array(values.length * 2)
    this.values = new Int32Array(values.length * 2)
    for (let i = 0; i < values.length; i++)
      if (values[i] !== 0) {
        const at = this.slot(hi[i]!, lo[i]!)
        this.hi[at] = hi[i]!
        this.lo[at] = lo[i]!
        this.values[at] = values[i]!
      }
  }
}

/** A 48-bit hash and its kind as two 32-bit halves. */
const highOf = (hash: number): number => (hash / 0x10000) | 0
const lowOf = (kind: FingerprintKind, hash: number): number => ((hash % 0x10000) << 4) | KIND_BIT[kind]

export class FlowMemory {
  private current = new HashTable()
  private previous = new HashTable()
  private since: number
  private readonly origins: string[] = []
  private readonly originIds = new Map<string, number>()
  private readonly now: () => number

  constructor(private readonly limits: MemoryLimits) {
    this.now = limits.now ?? Date.now
    this.since = this.now()
  }

  get size(): number {
    return this.current.size + this.previous.size
  }

  private rotateIfDue(): void {
    const now = this.now()
    if (now - this.since < this.limits.keepMs / 2 && this.current.size < this.limits.maxEntries / 2) return
    // Both generations out of time: nothing is kept.
    this.previous = now - this.since >= this.limits.keepMs ? new HashTable() : this.current
    this.current = new HashTable()
    this.since = now
    if (this.previous.size === 0) {
      this.origins.length = 0
      this.originIds.clear()
    }
  }

  private idOf(origin: string): number {
    let id = this.originIds.get(origin)
    if (id === undefined) {
      id = this.origins.length
      this.origins.push(origin)
      this.originIds.set(origin, id)
    }
    return id
  }

  /** Starts a batch of hashes from these origins; returns how to add one hash. */
  adder(origins: readonly string[]): (kind: FingerprintKind, hash: number) => void {
    this.rotateIfDue()
    let ids = origins.map((o) => this.idOf(o))
    return (kind, hash) => {
      if (this.current.size >= this.limits.maxEntries / 2) {
        this.rotateIfDue()
        // Rotation may have renumbered the origins.
        ids = origins.map((o) => this.idOf(o))
      }
      this.current.add(highOf(hash), lowOf(kind, hash), ids)
    }
  }

  /** The origins a hash of this kind came from (none: it was never seen, or is forgotten). */
  originsOf(kind: FingerprintKind, hash: number): string[] {
    this.rotateIfDue()
    const hi = highOf(hash)
    const lo = lowOf(kind, hash)
    const found: string[] = []
    for (const generation of [this.current, this.previous])
      for (const id of generation.get(hi, lo) ?? []) {
        const origin = this.origins[id]
        if (origin !== undefined && !found.includes(origin)) found.push(origin)
      }
    return found
  }
}
