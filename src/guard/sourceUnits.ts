/**
 * What of a result the data-flow guard fingerprints, in the pieces it remembers whole: its strings
 * (keys aside) in the order JSON.stringify writes them, up to a budget of characters; a long string
 * alone, short ones (a capture's URLs and headers) together in chunks. Used where the fingerprints are
 * taken: on the daemon's thread (./flowGuard.ts) or in its worker (./fingerprintWorker.ts).
 */
import { hashWhole, sourceFingerprints, type FingerprintKind } from './fingerprints'

/**
 * Texts are remembered whole in pieces of about this many characters (a long one alone, short ones
 * together), so a piece handed out again is hashed, not scanned again.
 */
const CHUNK_CHARS = 512
const MAX_CHUNK_CHARS = 4096
/** Fewest characters that can hold a feature (a number's digits): shorter texts leave nothing. */
const MIN_FEATURE_CHARS = 9
/** About one text in four ends a chunk once it is long enough, by the text's own characters. */
const endsChunk = (text: string): boolean =>
  ((text.length * 31 + text.charCodeAt(0) * 7 + text.charCodeAt(text.length - 1)) & 3) === 0

const MAX_DEPTH = 64
const HANDLE_KEY = /^(tab|window|group|frame|download)Ids?$/
const isHandle = (value: unknown): boolean =>
  typeof value === 'number' || (Array.isArray(value) && value.every((v) => typeof v === 'number'))

/**
 * The strings of a JSON value (keys aside), depth-first in the order JSON.stringify writes them,
 * until `budget` characters are taken; one at a time, so a long walk can stop and go on later.
 */
export class StringWalk {
  private readonly values: unknown[] = []
  private readonly depths: number[] = []
  private left: number

  constructor(value: unknown, budget: number) {
    this.values.push(value)
    this.depths.push(0)
    this.left = budget
  }

  /** The next string; undefined when there is none or the budget is spent. */
  next(): string | undefined {
    const { values, depths } = this
    while (values.length && this.left > 0) {
      const value = values.pop()
      const depth = depths.pop()!
      if (typeof value === 'string') {
        const taken = value.length > this.left ? value.slice(0, this.left) : value
        this.left -= taken.length
        return taken
      }
      // A long number sent as a JSON number is still the number.
      if (typeof value === 'number') {
        if (Number.isInteger(value) && Math.abs(value) >= 1e8) return String(value)
        continue
      }
      if (value === null || typeof value !== 'object' || depth >= MAX_DEPTH) continue
      if (Array.isArray(value)) {
        for (let i = value.length - 1; i >= 0; i--) {
          values.push(value[i])
          depths.push(depth + 1)
        }
        continue
      }
      // Browser handles (`tabId`, `windowId`, `tabIds`: numbers the browser gave out) are not data.
      const keys = Object.keys(value)
      for (let i = keys.length - 1; i >= 0; i--) {
        const next = (value as Record<string, unknown>)[keys[i]!]
        if (typeof next === 'boolean' || next === null || next === undefined) continue
        if (isHandle(next) && HANDLE_KEY.test(keys[i]!)) continue
        values.push(next)
        depths.push(depth + 1)
      }
    }
    return undefined
  }
}

/** The strings in a JSON value (keys aside), depth-first, until `budget` characters are taken. */
export function stringsOf(value: unknown, budget: number): string[] {
  const found: string[] = []
  const walk = new StringWalk(value, budget)
  for (let text = walk.next(); text !== undefined; text = walk.next()) found.push(text)
  return found
}

/**
 * A result's pieces, one at a time, so a long result can stop and go on later: a string of
 * CHUNK_CHARS or more alone, shorter ones (of MIN_FEATURE_CHARS or more) in a chunk that ends after a
 * text chosen by its content, so the same texts make the same chunks even after something new came
 * before them. A chunk's texts are each fingerprinted on their own, as they were handed out.
 */
export class SourceUnits {
  private readonly walk: StringWalk
  private readonly chunk: string[] = []
  private chunkChars = 0
  /** Characters walked since the caller last set this to 0 (it reads its clock every so many). */
  chars = 0

  constructor(output: unknown, budget: number) {
    this.walk = new StringWalk(output, budget)
  }

  /** The next piece: a string or a chunk of strings (valid until the next call); undefined at the end. */
  next(): string | readonly string[] | undefined {
    const { chunk } = this
    if (this.chunkChars < 0) {
      chunk.length = 0
      this.chunkChars = 0
    }
    for (let text = this.walk.next(); text !== undefined; text = this.walk.next()) {
      this.chars += text.length
      if (text.length >= CHUNK_CHARS) return text
      if (text.length < MIN_FEATURE_CHARS) continue
      chunk.push(text)
      this.chunkChars += text.length + 1
      if (this.chunkChars >= CHUNK_CHARS && (endsChunk(text) || this.chunkChars >= MAX_CHUNK_CHARS)) {
        // Emptied at the next call, once the caller is done with it.
        this.chunkChars = -1
        return chunk
      }
    }
    if (chunk.length === 0) return undefined
    this.chunkChars = -1
    return chunk
  }
}

/** Kinds by number, as a result's fingerprints carry them across threads. */
export const KINDS: readonly FingerprintKind[] = ['token', 'email', 'number', 'text']
const KIND_NUMBER: Record<FingerprintKind, number> = { token: 0, email: 1, number: 2, text: 3 }

/**
 * A result's fingerprints as numbers only (what a worker hands back, its buffers transferred): each
 * hash and its kind, and per piece three numbers in `pieces`: its whole hash, where its hashes end,
 * and 1 when it was skipped as known (no hashes), else 0.
 */
export interface ResultFingerprints {
  hashes: Float64Array<ArrayBuffer>
  kinds: Uint8Array<ArrayBuffer>
  pieces: Float64Array<ArrayBuffer>
}

/**
 * Every piece of a result fingerprinted, but those `known` says were fingerprinted before (only hashed
 * whole); `between` runs after each piece (the worker gives way to a call there).
 */
export function fingerprintResult(
  output: unknown,
  budget: number,
  known: (whole: number) => boolean = () => false,
  between?: () => void,
): ResultFingerprints {
  let hashes = new Float64Array(4096)
  let kinds = new Uint8Array(4096)
  let pieces = new Float64Array(96)
  let count = 0
  let at = 0
  const add = (kind: FingerprintKind, hash: number): void => {
    if (count === hashes.length) {
      hashes = grown(hashes, count * 2)
      const more = new Uint8Array(count * 2)
      more.set(kinds)
      kinds = more
    }
    hashes[count] = hash
    kinds[count++] = KIND_NUMBER[kind]
  }
  const units = new SourceUnits(output, budget)
  for (let piece = units.next(); piece !== undefined; piece = units.next()) {
    const whole = hashWhole(piece)
    const skipped = known(whole)
    if (skipped) {
      // Nothing to take again.
    } else if (typeof piece === 'string') sourceFingerprints(piece, add)
    else for (const text of piece) sourceFingerprints(text, add)
    if (at === pieces.length) pieces = grown(pieces, pieces.length * 2)
    pieces[at++] = whole
    pieces[at++] = count
    pieces[at++] = skipped ? 1 : 0
    between?.()
  }
  return { hashes: hashes.slice(0, count), kinds: kinds.slice(0, count), pieces: pieces.slice(0, at) }
}

function grown(array: Float64Array, length: number): Float64Array<ArrayBuffer> {
  const more = new Float64Array(length)
  more.set(array)
  return more
}
