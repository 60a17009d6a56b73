/**
 * The data-flow guard's scanners as they were before the one-pass scan (src/guard/fingerprints.ts
 * scanText): one pass per kind of feature. Kept here as the reference the one-pass scan is checked
 * against (referenceScanners.test.ts): the same features, at the same places, with the same hashes.
 * Hashes go through the module's hashString (a range's units case-folded, or its digits, as the old
 * scanners hashed them in place).
 */
import { hashString, type Emit, type FingerprintKind } from '../../../src/guard/fingerprints'

const TOKEN_MIN = 16
const TOKEN_MAX = 512
const NUMBER_MIN_DIGITS = 9
const NUMBER_MAX_DIGITS = 19
const TOKEN_MIN_ENTROPY = 3
export const SHINGLE_WORDS = 8

/** hashString of the range's ASCII letters lowercased. */
const hashFolded = (text: string, from: number, to: number): number =>
  hashString(text.slice(from, to).replace(/[A-Z]/g, (c) => c.toLowerCase()))

/** Lowercase letter or digit of any script. */
const isWordChar = (code: number): boolean =>
  (code >= 0x61 && code <= 0x7a) ||
  (code >= 0x30 && code <= 0x39) ||
  (code > 0x7f && /[\p{L}\p{N}]/u.test(String.fromCharCode(code)))

const isTokenChar = (code: number): boolean =>
  (code >= 0x61 && code <= 0x7a) ||
  (code >= 0x41 && code <= 0x5a) ||
  (code >= 0x30 && code <= 0x39) ||
  code === 0x5f ||
  code === 0x2d

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

/** Tokens: runs of [A-Za-z0-9_-] that look random; hashed case-folded. */
export function scanTokens(text: string, emit: Emit): void {
  const n = text.length
  let i = 0
  while (i < n) {
    if (!isTokenChar(text.charCodeAt(i))) {
      i++
      continue
    }
    let j = i + 1
    while (j < n && isTokenChar(text.charCodeAt(j))) j++
    if (looksLikeToken(text, i, j)) emit('token', hashFolded(text, i, j), i, j)
    i = j
  }
}

/** What may stand in an address's local part (before `@`), and the domain after it, read from the `@`. */
const isLocalChar = (code: number): boolean =>
  isTokenChar(code) || code === 0x2e || code === 0x25 || code === 0x2b
const EMAIL_LOCAL_MAX = 64
const EMAIL_DOMAIN = /@[a-z0-9-]{1,63}(?:\.[a-z0-9-]{1,63})*\.[a-z]{2,24}/iy

/**
 * E-mail addresses, case-folded. Read from each `@` outwards (its local part back, its domain
 * forth), never by a pattern tried at every position of the text.
 */
export function scanEmails(text: string, emit: Emit): void {
  for (let at = text.indexOf('@'); at !== -1; at = text.indexOf('@', at + 1)) {
    let from = at
    while (from > 0 && at - from < EMAIL_LOCAL_MAX && isLocalChar(text.charCodeAt(from - 1))) from--
    if (from === at) continue
    EMAIL_DOMAIN.lastIndex = at
    const domain = EMAIL_DOMAIN.exec(text)
    if (!domain) continue
    const to = at + domain[0].length
    emit('email', hashFolded(text, from, to), from, to)
    at = to - 1
  }
}

/**
 * Numbers of 9 to 19 digits, their groups separated by at most one space, dash or `) ` (cards,
 * accounts, phones): hashed as the digits alone. A longer number also counts by its last 10 digits,
 * so a phone number with or without its country code is the same number.
 */
export function scanNumbers(text: string, emit: Emit): void {
  const n = text.length
  let i = 0
  while (i < n) {
    if (!isDigit(text.charCodeAt(i)) || (i > 0 && isTokenChar(text.charCodeAt(i - 1)))) {
      i++
      continue
    }
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
    i = Math.max(end, i + 1)
  }
}

const digitBuffer = new Uint16Array(NUMBER_MAX_DIGITS)

const hashDigits = (from: number, to: number): number =>
  hashString(String.fromCharCode(...digitBuffer.subarray(from, to)))

function emitNumber(count: number, from: number, to: number, emit: Emit): void {
  if (count < NUMBER_MIN_DIGITS || count > NUMBER_MAX_DIGITS) return
  emit('number', hashDigits(0, count), from, to)
  if (count > 10) emit('number', hashDigits(count - 10, count), from, to)
}

/**
 * Every run of SHINGLE_WORDS words (letters and digits, case-folded), in order: where each starts and
 * ends, and its words as they were hashed (folded).
 */
export function scanShingles(
  text: string,
  onShingle: (words: string, from: number, to: number) => void,
): void {
  const k = SHINGLE_WORDS
  const words: string[] = []
  const starts: number[] = []
  const n = text.length
  let i = 0
  while (i < n) {
    let code = text.charCodeAt(i)
    if (code >= 0x41 && code <= 0x5a) code += 0x20
    if (!isWordChar(code)) {
      i++
      continue
    }
    const start = i
    let word = ''
    while (i < n) {
      let c = text.charCodeAt(i)
      if (c >= 0x41 && c <= 0x5a) c += 0x20
      else if (c > 0x7f) c = text[i]!.toLowerCase().charCodeAt(0)
      if (!isWordChar(c)) break
      word += String.fromCharCode(c)
      i++
    }
    words.push(word)
    starts.push(start)
    if (words.length < k) continue
    onShingle(words.slice(-k).join(' '), starts[starts.length - k]!, i)
  }
}

export type { Emit, FingerprintKind }
