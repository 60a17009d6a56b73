/**
 * What the data-flow guard recognises again in a later call's arguments, reduced to hashes: exact
 * high-entropy tokens, e-mail addresses, long numbers (card, account, phone) and winnowed hashes of
 * word sequences (longer text). Everything is case-folded first; text is compared as words of
 * letters and digits, so whitespace, punctuation and JSON escaping between words do not matter.
 * A hash is 48 bits, keyed with a per-process random seed: the guard keeps hashes, never values,
 * and a hash of one process says nothing in another.
 */
import { randomBytes } from 'node:crypto'

export type FingerprintKind = 'token' | 'email' | 'number' | 'text'

/** Words per text shingle, and the winnowing window over shingles (a copied run of ~k+2w words is always seen twice). */
export const SHINGLE_WORDS = 8
export const WINNOW_WINDOW = 4
/** Text matches need this many distinct shingles of one source: one common phrase is not a copy. */
export const TEXT_MIN_HITS = 2

const TOKEN_MIN = 16
const TOKEN_MAX = 512
const NUMBER_MIN_DIGITS = 9
const NUMBER_MAX_DIGITS = 19
/** Bits of Shannon entropy per character a run needs to count as a secret-looking token. */
const TOKEN_MIN_ENTROPY = 3

let SEED_A = 0
let SEED_B = 0
useHashKey(randomBytes(8))

/** The per-process key of every hash: the daemon's thread hands it to its fingerprint worker. */
export function hashKey(): Uint8Array {
  const key = Buffer.alloc(8)
  key.writeUInt32LE(SEED_A >>> 0, 0)
  key.writeUInt32LE(SEED_B >>> 0, 4)
  return key
}

/** Hashes from now on keyed with `key` (8 bytes): a worker's, so its hashes are the daemon's. */
export function useHashKey(key: Uint8Array): void {
  const bytes = Buffer.from(key.buffer, key.byteOffset, key.byteLength)
  SEED_A = bytes.readUInt32LE(0)
  SEED_B = bytes.readUInt32LE(4)
}

/** Two independent 32-bit multiplicative hashes over a string's UTF-16 units, folded into 48 bits. */
export function hashString(text: string, from = 0, to = text.length): number {
  let a = SEED_A ^ 0x811c9dc5
  let b = SEED_B ^ 0x9747b28c
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i)
    a = Math.imul(a ^ c, 0x01000193)
    b = Math.imul(b ^ c, 0x5bd1e995)
    b ^= b >>> 15
  }
  return combine(a, b)
}

/**
 * A hash of whole texts (one, or several as lines), to know a text handed out again: two UTF-16 units
 * a step, so it costs about half a scan's pass. Never compared with a feature's hash.
 */
export function hashWhole(texts: string | readonly string[]): number {
  let a = SEED_A ^ 0x2545f491
  let b = SEED_B ^ 0x61c88647
  const lines = typeof texts === 'string' ? [texts] : texts
  for (let l = 0; l < lines.length; l++) {
    const text = lines[l]!
    const n = text.length
    // Each text's length first: where one ends and the next begins is part of what is hashed.
    a = Math.imul(a ^ n, 0x01000193)
    b = Math.imul(b ^ n, 0x5bd1e995)
    b ^= b >>> 15
    let i = 0
    for (; i + 1 < n; i += 2) {
      const c = text.charCodeAt(i) | (text.charCodeAt(i + 1) << 16)
      a = Math.imul(a ^ c, 0x01000193)
      b = Math.imul(b ^ c, 0x5bd1e995)
      b ^= b >>> 15
    }
    if (i < n) {
      a = Math.imul(a ^ text.charCodeAt(i), 0x01000193)
      b = Math.imul(b ^ text.charCodeAt(i), 0x5bd1e995)
      b ^= b >>> 15
    }
  }
  return combine(a, b)
}

const combine = (a: number, b: number): number => (a >>> 0) * 0x10000 + ((b >>> 16) & 0xffff)

/** hashString of the range's ASCII letters lowercased, without copying it (a token is ASCII). */
function hashFolded(text: string, from: number, to: number): number {
  let a = SEED_A ^ 0x811c9dc5
  let b = SEED_B ^ 0x9747b28c
  for (let i = from; i < to; i++) {
    let c = text.charCodeAt(i)
    if (c >= 0x41 && c <= 0x5a) c += 0x20
    a = Math.imul(a ^ c, 0x01000193)
    b = Math.imul(b ^ c, 0x5bd1e995)
    b ^= b >>> 15
  }
  return combine(a, b)
}

/**
 * Past ASCII: a unit lowercased (the first unit of its lowercase) and whether that is a letter or
 * digit of any script, looked up once per unit and kept (0: not looked up yet). A unit that is a
 * letter or digit is one lowercased too, and the other way round (checked over the whole BMP).
 */
const wideFold = new Uint16Array(0x10000)
const wideWord = new Uint8Array(0x10000)
function lookUpWide(code: number): void {
  const folded = String.fromCharCode(code).toLowerCase().charCodeAt(0)
  wideFold[code] = folded
  wideWord[code] =
    (folded >= 0x61 && folded <= 0x7a) ||
    (folded >= 0x30 && folded <= 0x39) ||
    (folded > 0x7f && /[\p{L}\p{N}]/u.test(String.fromCharCode(folded)))
      ? 2
      : 1
}

/** What an ASCII unit is, as bits: a word's letter or digit, a token's character, a digit, an address's. */
const WORD = 1
const TOKEN = 2
const DIGIT = 4
const LOCAL = 8
const CLASS = new Uint8Array(128)
/** ASCII units case-folded (A-Z to a-z, the rest as they are). */
const FOLD = new Uint8Array(128)
for (let c = 0; c < 128; c++) {
  const letter = (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a)
  const digit = c >= 0x30 && c <= 0x39
  const token = letter || digit || c === 0x5f || c === 0x2d
  CLASS[c] =
    (letter || digit ? WORD : 0) |
    (token ? TOKEN : 0) |
    (digit ? DIGIT : 0) |
    (token || c === 0x2e || c === 0x25 || c === 0x2b ? LOCAL : 0)
  FOLD[c] = c >= 0x41 && c <= 0x5a ? c + 0x20 : c
}

const isTokenChar = (code: number): boolean => code < 128 && (CLASS[code]! & TOKEN) !== 0
const isDigit = (code: number): boolean => code >= 0x30 && code <= 0x39

const counts = new Uint16Array(128)
const LOG2 = Array.from({ length: TOKEN_MAX + 1 }, (_, n) => (n > 0 ? n * Math.log2(n) : 0))

/** Whether a run of token characters (ASCII) looks like a secret: long, letters and digits, varied. */
function looksLikeToken(text: string, from: number, to: number): boolean {
  const length = to - from
  if (length < TOKEN_MIN || length > TOKEN_MAX) return false
  let digits = 0
  let letters = 0
  // Entropy = log2(n) - sum(c * log2 c) / n over the characters' counts c.
  let sum = 0
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i)
    if (c <= 0x39) digits += c >= 0x30 ? 1 : 0
    else if (c !== 0x5f) letters++
    counts[c]!++
  }
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i)
    const n = counts[c]!
    if (n) {
      sum += LOG2[n]!
      counts[c] = 0
    }
  }
  if (digits === 0 || letters === 0) return false
  return Math.log2(length) - sum / length >= TOKEN_MIN_ENTROPY
}

/** One feature found in a text: its kind, its hash, and where it is (for the masked value at a sink). */
export type Emit = (kind: FingerprintKind, hash: number, from: number, to: number) => void
/** One shingle of SHINGLE_WORDS words: its hash and where its first word starts and its last ends. */
export type OnShingle = (hash: number, from: number, to: number) => void

const EMAIL_LOCAL_MAX = 64
const EMAIL_DOMAIN = /@[a-z0-9-]{1,63}(?:\.[a-z0-9-]{1,63})*\.[a-z]{2,24}/iy

/**
 * The address around the `@` at `at`, read outwards (its local part back, at most 64 characters, its
 * domain forth), never by a pattern tried at every position of the text (a domain holds no `@`: the
 * next `@` is past it).
 */
function emailAt(text: string, at: number, emit: Emit): void {
  let from = at
  while (from > 0 && at - from < EMAIL_LOCAL_MAX) {
    const c = text.charCodeAt(from - 1)
    if (c >= 128 || (CLASS[c]! & LOCAL) === 0) break
    from--
  }
  if (from === at) return
  EMAIL_DOMAIN.lastIndex = at
  const domain = EMAIL_DOMAIN.exec(text)
  if (!domain) return
  const to = at + domain[0].length
  emit('email', hashFolded(text, from, to), from, to)
}

/** The digits of the number being read (no more than a number may have; a longer run is no number). */
const digitBuffer = new Uint16Array(NUMBER_MAX_DIGITS)

/**
 * The number starting at `i` (a digit not glued to a token character before it): 9 to 19 digits, their
 * groups separated by at most one space, dash or `) ` (cards, accounts, phones), hashed as the digits
 * alone; a longer one also by its last 10 digits, so a phone number with or without its country code
 * is the same number. Returns where reading numbers goes on.
 */
function numberAt(text: string, i: number, emit: Emit): number {
  const n = text.length
  let count = 0
  let j = i
  let end = i
  while (j < n) {
    const c = text.charCodeAt(j)
    if (isDigit(c)) {
      if (count < digitBuffer.length) digitBuffer[count] = c
      count++
      end = ++j
      continue
    }
    // One separator between digit groups.
    const next = text.charCodeAt(j + 1)
    if ((c === 0x20 || c === 0x2d) && isDigit(next)) j++
    else if (c === 0x29 && (isDigit(next) || (next === 0x20 && isDigit(text.charCodeAt(j + 2))))) j++
    else break
  }
  const after = text.charCodeAt(end)
  // A digit run glued to letters (an id like abc123456789x) is a token's business, not a number's.
  if (!(end < n && isTokenChar(after) && !isDigit(after))) emitNumber(count, i, end, emit)
  return Math.max(end, i + 1)
}

/** hashString of the digits in digitBuffer[from, to), as a string of them would hash. */
function hashDigits(from: number, to: number): number {
  let a = SEED_A ^ 0x811c9dc5
  let b = SEED_B ^ 0x9747b28c
  for (let i = from; i < to; i++) {
    const c = digitBuffer[i]!
    a = Math.imul(a ^ c, 0x01000193)
    b = Math.imul(b ^ c, 0x5bd1e995)
    b ^= b >>> 15
  }
  return combine(a, b)
}

function emitNumber(count: number, from: number, to: number, emit: Emit): void {
  if (count < NUMBER_MIN_DIGITS || count > NUMBER_MAX_DIGITS) return
  emit('number', hashDigits(0, count), from, to)
  if (count > 10) emit('number', hashDigits(count - 10, count), from, to)
}

const shingleWordA = new Int32Array(SHINGLE_WORDS)
const shingleWordB = new Int32Array(SHINGLE_WORDS)
const shingleStarts = new Int32Array(SHINGLE_WORDS)

/**
 * Every feature of a text in one pass over its characters, each read once and classified by a table:
 * tokens (runs of [A-Za-z0-9_-] that look random, hashed case-folded), e-mail addresses (read from
 * each `@`, case-folded), numbers (from each digit that starts one) to `onExact`; and the hash of
 * every run of SHINGLE_WORDS words (letters and digits of any script, case-folded), in order, to
 * `onShingle`. No pattern per kind, no copy of the text or its words.
 */
export function scanText(text: string, onExact: Emit, onShingle: OnShingle): void {
  const k = SHINGLE_WORDS
  // One set of buffers for every scan: a scan never starts inside another.
  const wordA = shingleWordA
  const wordB = shingleWordB
  const starts = shingleStarts
  const n = text.length
  let words = 0
  let slot = 0
  let inWord = false
  let wordStart = 0
  let a = 0
  let b = 0
  let tokenStart = -1
  let numbersFrom = 0
  let previous = 0
  for (let i = 0; i <= n; i++) {
    let c = i < n ? text.charCodeAt(i) : 0x20
    let cls: number
    if (c < 128) {
      cls = CLASS[c]!
      c = FOLD[c]!
    } else {
      if (wideWord[c] === 0) lookUpWide(c)
      cls = wideWord[c] === 2 ? WORD : 0
      c = wideFold[c]!
    }
    if (cls & WORD) {
      if (!inWord) {
        inWord = true
        wordStart = i
        a = SEED_A ^ 0x811c9dc5
        b = SEED_B ^ 0x9747b28c
      }
      a = Math.imul(a ^ c, 0x01000193)
      b = Math.imul(b ^ c, 0x5bd1e995)
      b ^= b >>> 15
    } else if (inWord) {
      inWord = false
      wordA[slot] = a
      wordB[slot] = b
      starts[slot] = wordStart
      words++
      slot = slot + 1 === k ? 0 : slot + 1
      if (words >= k) {
        // The shingle's hash: the k word hashes in order (oldest first: the slot after the one just
        // written), combined.
        let sa = 0x2545f491
        let sb = 0x61c88647
        for (let w = 0, s = slot; w < k; w++, s = s + 1 === k ? 0 : s + 1) {
          sa = Math.imul(sa ^ wordA[s]!, 0x01000193)
          sb = Math.imul(sb ^ wordB[s]!, 0x5bd1e995)
          sb ^= sb >>> 13
        }
        onShingle(combine(sa, sb), starts[slot]!, i)
      }
    }
    if (cls & TOKEN) {
      if (tokenStart < 0) tokenStart = i
      // A digit that does not follow a token character may start a number.
      if (cls & DIGIT && i >= numbersFrom && (previous & TOKEN) === 0)
        numbersFrom = numberAt(text, i, onExact)
    } else {
      if (tokenStart >= 0) {
        if (i - tokenStart >= TOKEN_MIN && looksLikeToken(text, tokenStart, i))
          onExact('token', hashFolded(text, tokenStart, i), tokenStart, i)
        tokenStart = -1
      }
      if (c === 0x40 && i < n) emailAt(text, i, onExact)
    }
    previous = cls
  }
}

/**
 * The winnowed subset of a text's shingles (the least hash of every window of WINNOW_WINDOW
 * shingles, each chosen once): what a source keeps. A copy of SHINGLE_WORDS + WINNOW_WINDOW - 1 words
 * shares at least one of them.
 */
export function winnowedShingles(text: string, onHash: (hash: number) => void): void {
  winnowOnHash = onHash
  winnowSeen = 0
  winnowSlot = 0
  winnowPicked = -1
  scanText(text, noExact, winnowStep)
  // A text shorter than one window still leaves its shingles.
  if (winnowSeen > 0 && winnowSeen < WINNOW_WINDOW)
    for (let j = 0; j < winnowSeen; j++) onHash(winnowWindow[j]!)
  winnowOnHash = noHash
}

const noHash = (): void => undefined
const noExact: Emit = () => undefined
const winnowWindow = new Float64Array(WINNOW_WINDOW)
let winnowSeen = 0
let winnowSlot = 0
let winnowPicked = -1
let winnowOnHash: (hash: number) => void = noHash

/** One shingle into the window; the window's rightmost least hash, once per position. */
function winnowStep(hash: number): void {
  const w = WINNOW_WINDOW
  // The window holds the last w hashes, the oldest at winnowSlot once it is full.
  winnowWindow[winnowSlot] = hash
  winnowSlot = winnowSlot + 1 === w ? 0 : winnowSlot + 1
  winnowSeen++
  if (winnowSeen < w) return
  let min = Infinity
  let at = -1
  // Rightmost minimum, as winnowing prescribes: oldest to newest, ties to the later one.
  for (let j = 0, slot = winnowSlot; j < w; j++, slot = slot + 1 === w ? 0 : slot + 1) {
    const value = winnowWindow[slot]!
    if (value <= min) {
      min = value
      at = j
    }
  }
  const index = winnowSeen - w + at
  if (index !== winnowPicked) {
    winnowPicked = index
    winnowOnHash(min)
  }
}

/** Fewest characters that can hold a feature: a number's digits (a token and a shingle need more). */
const MIN_FEATURE_CHARS = NUMBER_MIN_DIGITS
/** Fewest characters of SHINGLE_WORDS words: one letter each, one separator between. */
const MIN_SHINGLE_CHARS = 2 * SHINGLE_WORDS - 1

/**
 * Everything a source leaves behind: tokens, addresses, numbers and winnowed text. A scan that cannot
 * find anything in a text this short (or without `@`, without a digit) is skipped.
 */
export function sourceFingerprints(
  text: string,
  onHash: (kind: FingerprintKind, hash: number) => void,
): void {
  if (text.length < MIN_FEATURE_CHARS) return
  sourceOnHash = onHash
  winnowOnHash = emitText
  winnowSeen = 0
  winnowSlot = 0
  winnowPicked = -1
  scanText(text, emitExact, text.length >= MIN_SHINGLE_CHARS ? winnowStep : noShingle)
  // A text shorter than one window still leaves its shingles.
  if (winnowSeen > 0 && winnowSeen < WINNOW_WINDOW)
    for (let j = 0; j < winnowSeen; j++) emitText(winnowWindow[j]!)
  winnowOnHash = noHash
  sourceOnHash = noHash
}

let sourceOnHash: (kind: FingerprintKind, hash: number) => void = noHash
const emitExact: Emit = (kind, hash) => sourceOnHash(kind, hash)
const emitText = (hash: number): void => sourceOnHash('text', hash)
const noShingle: OnShingle = () => undefined
