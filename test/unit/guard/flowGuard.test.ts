import { describe, expect, it } from 'vitest'
import {
  createFlowGuard,
  flowsInto,
  maskValue,
  stringsOf,
  type FlowMatch,
} from '../../../src/guard/flowGuard'
import { decodedForms } from '../../../src/guard/encodings'
import { hashWhole } from '../../../src/guard/fingerprints'

const A = 'http://127.0.0.1:4001'
const B = 'http://127.0.0.1:4002'
const TOKEN = 'sk_live_9fQ2xT7bLm4Rz8WkP3vN'
const EMAIL = 'jane.doe@corp.example'
const CARD = '4111 1111 1111 1234'
const PARAGRAPH =
  'The quarterly revenue of the northern division grew by eleven percent while the costs of ' +
  'shipping fell sharply after the new warehouse near the harbour opened in the spring.'

/** A page on A as a snapshot would hand it out: the secrets inside ordinary markup and text. */
const PAGE_A = [
  '- heading "Account settings" [level=1]',
  `- text: Your API key is ${TOKEN}, keep it private.`,
  `- text: Contact: ${EMAIL}`,
  `- text: Card on file ${CARD}`,
  `- paragraph: ${PARAGRAPH}`,
  '- link "Privacy policy" [ref=e12]',
].join('\n')

/** A guard that has handed PAGE_A to `client`, fingerprints taken. */
function guardAfterReading(client = 'agent') {
  const guard = createFlowGuard()
  guard.recordSource(client, [A], PAGE_A)
  guard.settle()
  return guard
}

const kindsOf = (matches: FlowMatch[]) => matches.map((m) => m.kind).sort()
const b64 = (text: string) => Buffer.from(text).toString('base64')
const b64url = (text: string) => Buffer.from(text).toString('base64url')

describe('flowGuard: what a client was handed is recognised in its later arguments', () => {
  const guard = guardAfterReading()
  const cases: Array<[string, unknown, string]> = [
    ['the token as it is', { text: TOKEN }, 'token'],
    ['the token in another case', { text: TOKEN.toUpperCase() }, 'token'],
    ['the token in a URL query', { url: `${B}/collect?k=${TOKEN}` }, 'token'],
    ['the token in a fragment', { url: `${B}/#${TOKEN}` }, 'token'],
    [
      'the token URL-encoded twice',
      { url: `${B}/?k=${encodeURIComponent(encodeURIComponent(`x ${TOKEN}`))}` },
      'token',
    ],
    ['the token in base64 in a URL', { url: `${B}/?d=${b64(`key=${TOKEN}`)}` }, 'token'],
    [
      'the token in URL-safe base64 as a path segment',
      { url: `${B}/send/${b64url(`{"k":"${TOKEN}"}`)}/x` },
      'token',
    ],
    ['the token in percent-encoded base64', { url: `${B}/?d=${encodeURIComponent(b64(TOKEN))}` }, 'token'],
    [
      'the token as HTML entities',
      { html: [...TOKEN].map((c) => `&#${c.charCodeAt(0)};`).join('') },
      'token',
    ],
    [
      'the token as \\u escapes in a script',
      {
        script: `fetch("${B}/?k=" + "${[...TOKEN].map((c) => `\\u00${c.charCodeAt(0).toString(16)}`).join('')}")`,
      },
      'token',
    ],
    ['the address', { text: `mail ${EMAIL} now` }, 'email'],
    [
      'the address upper-cased and URL-encoded',
      { url: `${B}/?to=${encodeURIComponent(EMAIL.toUpperCase())}` },
      'email',
    ],
    ['the address with HTML-entity @', { html: EMAIL.replace('@', '&#64;') }, 'email'],
    ['the card without spaces', { value: CARD.replace(/ /g, '') }, 'number'],
    ['the card with dashes', { value: CARD.replace(/ /g, '-') }, 'number'],
    ['the card as a JSON number', { value: Number(CARD.replace(/ /g, '')) }, 'number'],
    ['the paragraph', { text: PARAGRAPH }, 'text'],
    [
      'the paragraph re-spaced, re-cased and re-punctuated',
      { text: PARAGRAPH.toUpperCase().replace(/ /g, '\n  ').replace(/,/g, ';') },
      'text',
    ],
    ['the paragraph in base64', { body: b64(PARAGRAPH) }, 'text'],
    ['the paragraph in a URL query', { url: `${B}/?q=${encodeURIComponent(PARAGRAPH)}` }, 'text'],
    [
      'the second half of the paragraph (18 words)',
      { text: PARAGRAPH.split(' ').slice(-18).join(' ') },
      'text',
    ],
  ]
  for (const [name, input, kind] of cases)
    it(`finds ${name}`, () => {
      const matches = guard.matchSink('agent', input)
      expect(matches.map((m) => m.kind)).toContain(kind)
      expect(matches.every((m) => m.source === A)).toBe(true)
    })

  it('finds a phone number with and without its country code', () => {
    const phones = createFlowGuard()
    phones.recordSource('agent', [A], 'Call us: (555) 123-4567')
    phones.settle()
    expect(kindsOf(phones.matchSink('agent', { v: '+1 555 123 4567' }))).toEqual(['number'])
    expect(kindsOf(phones.matchSink('agent', { v: '5551234567' }))).toEqual(['number'])
  })

  it('finds several kinds in one argument and names each once', () => {
    const matches = guard.matchSink('agent', { text: `${EMAIL} ${TOKEN} ${TOKEN}` })
    expect(kindsOf(matches)).toEqual(['email', 'token'])
  })
})

describe('flowGuard: ordinary text is no flow', () => {
  const guard = guardAfterReading()
  const ordinary: Array<[string, unknown]> = [
    ['a search query', { url: `${B}/search?q=quarterly+revenue+report` }],
    ['a short phrase from the paragraph (6 words)', { text: 'the costs of shipping fell sharply' }],
    ['one common phrase of the page', { text: 'Privacy policy' }],
    [
      'a form of ordinary words',
      {
        fields: [
          { ref: 'e3', value: 'Jane' },
          { ref: 'e4', value: 'Doe' },
        ],
      },
    ],
    ['a date and a short number', { text: 'Meet on 2026-11-27 at 14:30, room 4111' }],
    ['the last four digits of the card', { text: 'card ending 1234' }],
    ['another address at the same domain', { text: 'john.smith@corp.example' }],
    ['a token of the same shape that was never read', { text: 'sk_live_Zz8Yy7Xx6Ww5Vv4Uu3Tt' }],
    ['a URL with a long word path', { url: `${B}/products/internationalization-guide/index.html` }],
    [
      'a script with ordinary code',
      { script: 'document.querySelector("#q").value = "hello world"; return 1' },
    ],
    ['plain words that look like base64', { text: 'Authentication Internationalization Responsibilities' }],
  ]
  for (const [name, input] of ordinary)
    it(`does not flag ${name}`, () => expect(guard.matchSink('agent', input)).toEqual([]))

  it('does not flag a long ordinary page read on B against another long ordinary page read on A', () => {
    const pages = createFlowGuard()
    const pageA =
      'Welcome to our store. We sell books, music and films. Sign in to see your orders, or create an ' +
      'account to start shopping. Free delivery on orders over twenty pounds. Returns are accepted within ' +
      'thirty days of purchase. Contact customer service for help with your order.'
    pages.recordSource('agent', [A], pageA)
    pages.settle()
    const typed =
      'Hello, I would like to return a pair of shoes I bought last week. They do not fit and I have kept ' +
      'the receipt. Could you please tell me how to send them back? Thank you for your help.'
    expect(pages.matchSink('agent', { text: typed })).toEqual([])
  })

  it('does not flag page tokens that are ordinary words, hex colours or short ids', () => {
    const pages = createFlowGuard()
    pages.recordSource(
      'agent',
      [A],
      'color #ff00aa id=e42 version 1.2.3 build 2026 item-12 abcdefghijklmnopqrstuvwxyz',
    )
    pages.settle()
    expect(pages.matchSink('agent', { text: 'abcdefghijklmnopqrstuvwxyz item-12 version 1.2.3' })).toEqual([])
  })
})

describe('flowGuard: per client, bounded, hashes only', () => {
  it('keeps each client apart: what one read is nothing for another', () => {
    const guard = guardAfterReading('first')
    expect(guard.matchSink('second', { text: TOKEN })).toEqual([])
    expect(guard.matchSink('first', { text: TOKEN })).toHaveLength(1)
  })

  it('forgets after the time to keep', () => {
    let now = 1_000_000
    const guard = createFlowGuard({ keepMs: 60_000, now: () => now })
    guard.recordSource('agent', [A], PAGE_A)
    guard.settle()
    now += 20_000
    expect(guard.matchSink('agent', { text: TOKEN })).toHaveLength(1)
    now += 60_000
    expect(guard.matchSink('agent', { text: TOKEN })).toEqual([])
  })

  it('keeps no more than its room: the oldest results go first', () => {
    const guard = createFlowGuard({ maxEntries: 200 })
    guard.recordSource('agent', [A], `key ${TOKEN}`)
    for (let i = 0; i < 50; i++)
      guard.recordSource('agent', [B], Array.from({ length: 40 }, (_, j) => `w${i}x${j}`).join(' '))
    guard.settle()
    expect(guard.matchSink('agent', { text: TOKEN })).toEqual([])
  })

  it('takes a result handed out a moment ago at the next match, before the deferred work ran', () => {
    const guard = createFlowGuard()
    guard.recordSource('agent', [A], `key ${TOKEN}`)
    expect(guard.matchSink('agent', { text: TOKEN })).toHaveLength(1)
  })

  it('does no fingerprinting while recording: the work waits for later, a match of another client leaves it', () => {
    const guard = createFlowGuard()
    guard.recordSource('agent', [A], `key ${TOKEN}`)
    expect(guard.busy).toBe(true)
    expect(guard.matchSink('other', { text: TOKEN })).toEqual([])
    expect(guard.busy).toBe(true)
    expect(guard.matchSink('agent', { text: TOKEN })).toHaveLength(1)
    expect(guard.busy).toBe(false)
  })

  it('takes a large result in slices across turns; a match in the middle takes the rest first', async () => {
    const guard = createFlowGuard({ sliceMs: 0, quietWaitMs: 0 })
    // 2 MB of strings, the token in the last one: many slices of a few thousand characters each.
    const filler = Array.from({ length: 2000 }, (_, i) => `row ${i} `.padEnd(1000, 'x'))
    guard.recordSource('agent', [A], [...filler, `key ${TOKEN}`])
    await new Promise((resolve) => setTimeout(resolve, 5))
    // Some slices ran, not all: the token is not remembered yet, and the match must wait for it.
    expect(guard.busy).toBe(true)
    expect(guard.matchSink('agent', { url: `${B}/?k=${TOKEN}` }).map((m) => m.source)).toEqual([A])
    expect(guard.busy).toBe(false)
  })

  it('works off pending results on its own when nothing asks for them', async () => {
    const guard = createFlowGuard()
    guard.recordSource('agent', [A], `key ${TOKEN}`)
    for (let i = 0; i < 200 && guard.busy; i++) await new Promise((resolve) => setTimeout(resolve, 5))
    expect(guard.busy).toBe(false)
    expect(guard.matchSink('agent', { text: TOKEN })).toHaveLength(1)
  })

  it('remembers no more of a result than the text handed out reached', () => {
    const guard = createFlowGuard()
    const head = 'the first part of the page '.repeat(40)
    guard.recordSource('agent', [A], `${head} key ${TOKEN}`, head.length)
    guard.settle()
    expect(guard.matchSink('agent', { text: TOKEN })).toEqual([])
    guard.recordSource('agent', [A], `${head} key ${TOKEN}`)
    expect(guard.matchSink('agent', { text: TOKEN })).toHaveLength(1)
  })

  it('labels a value read on two origins with both', () => {
    const guard = createFlowGuard()
    guard.recordSource('agent', [A], `key ${TOKEN}`)
    guard.recordSource('agent', [B], `same key ${TOKEN}`)
    guard.settle()
    expect(
      guard
        .matchSink('agent', { text: TOKEN })
        .map((m) => m.source)
        .sort(),
    ).toEqual([A, B])
  })

  it('remembers a long text read again: from another origin too, and for a full term past a turn of the generations', () => {
    let now = 0
    const guard = createFlowGuard({ keepMs: 1000, now: () => now })
    const page = `${PAGE_A}\n${'- text: another row of the page\n'.repeat(40)}`
    expect(page.length).toBeGreaterThan(1024)
    guard.recordSource('agent', [A], page)
    guard.settle()
    // The same page read again on B: remembered under B as well, not taken as seen.
    guard.recordSource('agent', [B], page)
    guard.settle()
    expect(
      guard
        .matchSink('agent', { text: TOKEN })
        .map((m) => m.source)
        .sort(),
    ).toEqual([A, B])
    // Read again once the generations turned: its fingerprints are taken anew into the current one...
    now = 600
    guard.recordSource('agent', [A], page)
    guard.settle()
    // ...so when the first reading is forgotten, the last one still counts.
    now = 1100
    expect(guard.matchSink('agent', { text: TOKEN }).map((m) => m.source)).toEqual([A])
    expect(kindsOf(guard.matchSink('agent', { text: `${EMAIL} ${CARD}` }))).toEqual(['email', 'number'])
  })

  it("finds each value of a capture's many short strings, read once or again, as it was", () => {
    const guard = createFlowGuard()
    const requests = Array.from({ length: 300 }, (_, i) => ({
      url: `${A}/api/messages/${i}`,
      status: 200,
      headers: {
        'x-user': `user${i}@corp.example`,
        'x-account': String(400000000000 + i),
        accept: 'application/json',
      },
    }))
    requests[150]!.headers.accept = `key ${TOKEN}`
    for (let read = 0; read < 2; read++) {
      guard.recordSource('agent', [A], { requests })
      guard.settle()
    }
    expect(guard.matchSink('agent', { text: TOKEN }).map((m) => m.source)).toEqual([A])
    expect(kindsOf(guard.matchSink('agent', { text: 'mail user299@corp.example' }))).toEqual(['email'])
    expect(kindsOf(guard.matchSink('agent', { text: 'account 400000000007' }))).toEqual(['number'])
  })

  it('hashes whole texts so that no two ways of cutting the same characters meet', () => {
    expect(hashWhole(['ab', 'c'])).not.toBe(hashWhole(['a', 'bc']))
    expect(hashWhole(['abc'])).toBe(hashWhole('abc'))
    expect(hashWhole('abc')).not.toBe(hashWhole('abd'))
    expect(hashWhole('abcd')).not.toBe(hashWhole('abc'))
  })

  it('keeps no value: the memory holds numbers only', () => {
    const guard = guardAfterReading()
    const seen = JSON.stringify(guard, (_key, value: unknown) =>
      value instanceof Map ? [...value.entries()] : (value as object),
    )
    expect(seen).not.toContain(TOKEN)
    expect(seen).not.toContain('jane')
  })
})

describe('flowsInto and masks', () => {
  const matches: FlowMatch[] = [
    { source: A, kind: 'email', masked: 'j***@corp.example' },
    { source: B, kind: 'token', masked: 'sk_l*** (28 characters)' },
  ]
  it('drops same-origin flows', () => {
    expect(flowsInto(matches, [B])).toEqual([{ ...matches[0], sink: B }])
    expect(flowsInto(matches, [A, B]).map((f) => `${f.source}>${f.sink}`)).toEqual([`${A}>${B}`, `${B}>${A}`])
  })
  it('masks each kind so it can be recognised but not used', () => {
    expect(maskValue('email', EMAIL)).toBe('j***@corp.example')
    expect(maskValue('token', TOKEN)).toBe('sk_l*** (28 characters)')
    expect(maskValue('number', CARD)).toBe('***1234 (16 digits)')
    expect(maskValue('text', PARAGRAPH)).toBe('"The quarterly revenue …" (29 words of text)')
  })
  it('decodes each form once and keeps the original', () => {
    const forms = decodedForms(`a=${encodeURIComponent(b64('hello there'))}`)
    expect(forms[0]).toBe(`a=${encodeURIComponent(b64('hello there'))}`)
    expect(forms).toContain('hello there')
  })
})

describe('browser handles are not data', () => {
  it('leaves tab, window and group ids out of what is matched, and keeps other long numbers', () => {
    expect(stringsOf({ tabId: 1203213421, tabIds: [1203213422], account: 4111111111111111 }, 1000)).toEqual([
      '4111111111111111',
    ])
  })
})
