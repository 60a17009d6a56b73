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
 * Hash -> origins, open addressing over one typed array (no object per entry: a megabyte of text
 * leaves tens of thousands of hashes), a slot's three numbers side by side so a probe reads one
 * place in memory: the key's two halves and its value, an origin's number + 1, or -(list + 1) for
 * several origins (0: an empty slot).
 */
class HashTable {
  private slots: Int32Array
  /** Slots (a power of two); a new generation starts with its predecessor's, not growing through it again. */
  capacity: number
  private readonly lists: number[][] = []
  size = 0

  constructor(capacity = 1024) {
    this.capacity = capacity
    this.slots = new Int32Array(capacity * 3)
  }

  /** Where the key is, or the empty slot where it would go (an index into `slots`). */
  private slot(hi: number, lo: number): number {
    const { slots } = this
    const mask = this.capacity - 1
    let at = (hi ^ Math.imul(lo, 0x9e3779b1)) & mask
    for (;;) {
      const i = at * 3
      if (slots[i + 2] === 0 || (slots[i] === hi && slots[i + 1] === lo)) return i
      at = (at + 1) & mask
    }
  }

  /** The origins' numbers kept for a key, or undefined. */
  get(hi: number, lo: number): readonly number[] | undefined {
    const value = this.slots[this.slot(hi, lo) + 2]!
    if (value === 0) return undefined
    return value > 0 ? [value - 1] : this.lists[-value - 1]
  }

  add(hi: number, lo: number, ids: readonly number[]): void {
    if ((this.size + 1) * 2 > this.capacity) this.grow()
    const { slots } = this
    const i = this.slot(hi, lo)
    const value = slots[i + 2]!
    if (value === 0) {
      slots[i] = hi
      slots[i + 1] = lo
      this.size++
      if (ids.length === 1) slots[i + 2] = ids[0]! + 1
      else slots[i + 2] = -this.lists.push(ids.slice())
      return
    }
    // Seen before from the same one origin (a text read again): nothing to add.
    if (value > 0 && ids.length === 1 && ids[0] === value - 1) return
    const list = value > 0 ? [value - 1] : this.lists[-value - 1]!
    for (const id of ids) if (!list.includes(id)) list.push(id)
    if (value > 0 && list.length > 1) slots[i + 2] = -this.lists.push(list)
  }

  private grow(): void {
    const old = this.slots
    this.capacity *= 2
    this.slots = new Int32Array(this.capacity * 3)
    for (let i = 0; i < old.length; i += 3)
      if (old[i + 2] !== 0) {
        const at = this.slot(old[i]!, old[i + 1]!)
        this.slots[at] = old[i]!
        this.slots[at + 1] = old[i + 1]!
        this.slots[at + 2] = old[i + 2]!
      }
  }
}

/** A 48-bit hash and its kind as two 32-bit halves. */
const highOf = (hash: number): number => (hash / 0x10000) | 0
const lowOf = (kind: FingerprintKind, hash: number): number => ((hash % 0x10000) << 4) | KIND_BIT[kind]
/** The hash of a whole text already fingerprinted (no kind bit: it never matches a sink's value). */
const wholeLowOf = (hash: number): number => (hash % 0x10000) << 4

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

  /** How many times the generations turned (a text fingerprinted across a turn is not marked whole). */
  rotations = 0

  private rotateIfDue(): void {
    const now = this.now()
    if (now - this.since < this.limits.keepMs / 2 && this.current.size < this.limits.maxEntries / 2) return
    this.rotations++
    // Both generations out of time: nothing is kept.
    const expired = now - this.since >= this.limits.keepMs
    this.previous = expired ? new HashTable() : this.current
    this.current = expired ? new HashTable() : new HashTable(this.previous.capacity)
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

  /**
   * Whether a whole text of this hash was fingerprinted from all these origins in the current
   * generation (so its fingerprints are there, as long as the mark): a result read again leaves
   * nothing new. Never turns the generations (an adder in use keeps its origins' numbers).
   */
  hasWhole(hash: number, origins: readonly string[]): boolean {
    const ids = this.current.get(highOf(hash), wholeLowOf(hash))
    if (!ids) return false
    return origins.every((o) => {
      const id = this.originIds.get(o)
      return id !== undefined && ids.includes(id)
    })
  }

  /** Marks a whole text as fingerprinted from these origins (after its fingerprints went in). */
  addWhole(hash: number, origins: readonly string[]): void {
    this.current.add(
      highOf(hash),
      wholeLowOf(hash),
      origins.map((o) => this.idOf(o)),
    )
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
