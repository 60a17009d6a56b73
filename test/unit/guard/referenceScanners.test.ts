import { describe, expect, it } from 'vitest'
import {
  hashString,
  scanText,
  SHINGLE_WORDS,
  sourceFingerprints,
  WINNOW_WINDOW,
  type FingerprintKind,
} from '../../../src/guard/fingerprints'
import { scanEmails, scanNumbers, scanShingles, scanTokens } from './referenceScanners'

/** A seeded generator of varied texts: words, tokens, addresses, numbers, other scripts, glued or apart. */
function textsOf(seed: number, count: number): string[] {
  let x = seed
  const next = () => (x = (Math.imul(x, 1103515245) + 12345) >>> 0) >>> 8
  const pick = <T>(items: readonly T[]): T => items[next() % items.length]!
  const run = (alphabet: string, min: number, max: number) =>
    Array.from({ length: min + (next() % (max - min + 1)) }, () => alphabet[next() % alphabet.length]).join(
      '',
    )
  const WORDS = [
    'the',
    'Quarterly',
    'REVENUE',
    'of',
    'north',
    'grew',
    'by',
    'eleven',
    'percent',
    'a',
    'I',
    'x1',
  ]
  const WIDE = [
    'Größe',
    'İstanbul',
    'ΣΊΣΥΦΟΣ',
    'naïve',
    '東京都',
    'Ünïcödé',
    'ǅemal',
    '😀',
    'ﬁle',
    '١٢٣٤٥٦٧٨٩٠',
  ]
  const TOKEN_CHARS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-'
  const SEPARATORS = [
    ' ',
    ' ',
    ' ',
    '\n',
    ', ',
    '. ',
    '-',
    '_',
    '@',
    '.',
    ')',
    ') ',
    '(',
    '/',
    '?q=',
    '%20',
    '&#64;',
    '\t',
    '',
  ]
  const piece = (): string => {
    switch (next() % 12) {
      case 0:
        return pick(WIDE)
      case 1:
        return run(TOKEN_CHARS, 10, 60)
      case 2:
        return `${run('abcdefghij.+%_-', 1, 12)}@${run('abcdefgh-', 1, 10)}.${run('abcxyz', 1, 4)}`
      case 3:
        return pick([
          '4111 1111 1111 1234',
          '+1 (555) 123-4567',
          '(555) 123 4567',
          '0041 79 123 45 67',
          '12345678',
        ])
      case 4:
        return run('0123456789', 1, 24)
      case 5:
        return `${run('0123456789', 3, 4)}${pick([' ', '-', ') ', ')', '  '])}${run('0123456789', 3, 8)}`
      case 6:
        return run('aB3 -_@.)', 1, 20)
      default:
        return pick(WORDS)
    }
  }
  return Array.from({ length: count }, () => {
    const parts: string[] = []
    for (let i = 0, n = 1 + (next() % 60); i < n; i++) parts.push(piece(), pick(SEPARATORS))
    return parts.join('')
  })
}

/** Page-like texts as the guard is handed them: a snapshot's lines and a capture's short strings. */
const PAGES = [
  `- heading "Account settings" [level=1]\n- text: Your API key is sk_live_9fQ2xT7bLm4Rz8WkP3vN, keep it private.\n- text: Contact: jane.doe@corp.example\n- text: Card on file 4111 1111 1111 1234\n- paragraph: The quarterly revenue of the northern division grew by eleven percent while the costs of shipping fell.`,
  'https://mail.example.com/api/messages/tok_2ud2w6a78a1m95j?q=here%20their%20they',
  'to.at65@corp.example',
  '4000000005832173',
  'Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
  'a@b.c @@ x@y.zz user@@host.example.com ..@.. first.last+tag@sub.domain.example.org',
  '',
  'short',
  '123456789',
  'abc123456789x 123456789x x123456789 (555) 123-4567 call +41 79 123 45 67 now',
]

interface Feature {
  kind: FingerprintKind
  hash: number
  from: number
  to: number
}

function referenceExact(text: string): Feature[] {
  const found: Feature[] = []
  const emit = (kind: FingerprintKind, hash: number, from: number, to: number) =>
    found.push({ kind, hash, from, to })
  scanTokens(text, emit)
  scanEmails(text, emit)
  scanNumbers(text, emit)
  return found
}

/** The one-pass scan's features: the exact ones by kind (each kind in the order found), and its shingles. */
function scanned(text: string) {
  const exact: Feature[] = []
  const shingles: Array<{ hash: number; from: number; to: number }> = []
  scanText(
    text,
    (kind, hash, from, to) => exact.push({ kind, hash, from, to }),
    (hash, from, to) => shingles.push({ hash, from, to }),
  )
  const order: FingerprintKind[] = ['token', 'email', 'number']
  return { exact: order.flatMap((kind) => exact.filter((f) => f.kind === kind)), shingles }
}

/** Winnowing as the guard defines it: the rightmost least hash of every window, each position once. */
function winnow(hashes: readonly number[]): number[] {
  const w = WINNOW_WINDOW
  if (hashes.length < w) return [...hashes]
  const picked: number[] = []
  let last = -1
  for (let p = 0; p + w <= hashes.length; p++) {
    let at = p
    for (let j = p; j < p + w; j++) if (hashes[j]! <= hashes[at]!) at = j
    if (at !== last) picked.push(hashes[at]!)
    last = at
  }
  return picked
}

const VARIED = [...PAGES, ...textsOf(1, 150), ...textsOf(29, 150)]
/** Each text also upper- and lower-cased (the same words folded), and some repeated. */
const CORPUS = [
  ...VARIED,
  ...VARIED.slice(0, 100).flatMap((t) => [t.toUpperCase(), t.toLowerCase()]),
  ...textsOf(4242, 40).map((t) => t.repeat(5)),
]

describe('the one-pass scan finds what the per-kind scanners found', () => {
  it('covers every kind of feature in its corpus', () => {
    const kinds = new Set(CORPUS.flatMap((text) => referenceExact(text).map((f) => f.kind)))
    expect([...kinds].sort()).toEqual(['email', 'number', 'token'])
    expect(CORPUS.filter((text) => /[^ -~\s]/.test(text)).length).toBeGreaterThan(50)
  })

  it('finds the same tokens, addresses and numbers, at the same places, with the same hashes', () => {
    for (const text of CORPUS) expect(scanned(text).exact, text).toEqual(referenceExact(text))
  })

  it('hashes tokens, addresses and numbers as the strings of their folded characters or digits hash', () => {
    const text = 'Key SK_live_9fQ2xT7bLm4Rz8WkP3vN to Jane.Doe@Corp.Example, card 4111-1111-1111-1234.'
    expect(scanned(text).exact.map((f) => [f.kind, f.hash])).toEqual([
      ['token', hashString('sk_live_9fq2xt7blm4rz8wkp3vn')],
      ['email', hashString('jane.doe@corp.example')],
      ['number', hashString('4111111111111234')],
      ['number', hashString('1111111234')],
    ])
  })

  it('cuts the same shingles, and two shingles hash alike exactly when their folded words are the same', () => {
    const wordsOf = new Map<number, string>()
    const hashOf = new Map<string, number>()
    let shingles = 0
    const wrong: string[] = []
    for (const text of CORPUS) {
      const reference: Array<{ words: string; from: number; to: number }> = []
      scanShingles(text, (words, from, to) => reference.push({ words, from, to }))
      const found = scanned(text).shingles
      expect(
        found.map(({ from, to }) => [from, to]),
        text,
      ).toEqual(reference.map(({ from, to }) => [from, to]))
      found.forEach(({ hash }, i) => {
        const { words } = reference[i]!
        if (words.split(' ').length !== SHINGLE_WORDS) wrong.push(`not ${SHINGLE_WORDS} words: ${words}`)
        if ((wordsOf.get(hash) ?? words) !== words) wrong.push(`one hash for two shingles: ${words}`)
        if ((hashOf.get(words) ?? hash) !== hash) wrong.push(`two hashes for one shingle: ${words}`)
        wordsOf.set(hash, words)
        hashOf.set(words, hash)
        shingles++
      })
    }
    expect(wrong).toEqual([])
    expect(shingles).toBeGreaterThan(5000)
  })

  it("leaves a source's exact features and its winnowed shingles, as before", () => {
    for (const text of CORPUS) {
      const left: Array<[FingerprintKind, number]> = []
      sourceFingerprints(text, (kind, hash) => left.push([kind, hash]))
      const expected: Array<[FingerprintKind, number]> = []
      if (text.length >= 9) {
        for (const f of referenceExact(text)) expected.push([f.kind, f.hash])
        if (text.length >= 2 * SHINGLE_WORDS - 1)
          for (const hash of winnow(scanned(text).shingles.map((s) => s.hash))) expected.push(['text', hash])
      }
      const sort = (list: Array<[FingerprintKind, number]>) =>
        list.map(([kind, hash]) => `${kind} ${hash}`).sort()
      expect(sort(left), text).toEqual(sort(expected))
    }
  })
})
