import { describe, expect, it } from 'vitest'
import { cutOutline } from '../../../../../extension/builtins/pageLibrary/truncate'

const outline = (rows: number) =>
  [
    'URL: https://example.com/',
    'Title: Rows',
    ...Array.from({ length: rows }, (_, i) => ` - row: ${i} | é`),
  ].join('\n')
const opts = { tool: 'browser_snapshot', narrow: 'pass selector' }
const bytes = (text: string) => Buffer.byteLength(text)

describe('cutOutline', () => {
  it('returns an outline within its budget as it is', () => {
    const text = outline(3)
    expect(cutOutline(text, { ...opts, maxBytes: 1_000, complete: true })).toEqual({ text, truncated: false })
  })

  it('fills the byte budget with whole lines, counted in UTF-8 on the final text, and names the cursor for the rest', () => {
    const text = outline(1_000)
    const cut = cutOutline(text, { ...opts, maxBytes: 2_000, complete: true })
    expect(cut.truncated).toBe(true)
    expect(bytes(cut.text)).toBeLessThanOrEqual(2_000)
    // Short of the budget by less than one more line.
    expect(bytes(cut.text)).toBeGreaterThan(2_000 - 30)
    const end = Number(/cursor: (\d+);/.exec(cut.text)?.[1])
    expect(
      cut.text.endsWith(
        `[cut at maxLength (2000 bytes): lines 1-${end} of 1000; the rest: browser_snapshot with cursor: ${end}; or pass selector]`,
      ),
    ).toBe(true)
    expect(cut.text.split('\n').at(-2)).toBe(` - row: ${end - 1} | é`)
  })

  it('continues from the cursor to the end, saying where it starts and that it is the end', () => {
    const text = outline(100)
    const rest = cutOutline(text, { ...opts, maxBytes: 100_000, cursor: 90, complete: true })
    expect(rest.text.split('\n').slice(0, 4)).toEqual([
      'URL: https://example.com/',
      'Title: Rows',
      '[from line 91]',
      ' - row: 90 | é',
    ])
    expect(rest.text.endsWith('[lines 91-100 of 100: the end]')).toBe(true)
  })

  it('says "more than" when the page walk stopped before the end, and cuts even a short text then', () => {
    const cut = cutOutline(outline(5), { ...opts, maxBytes: 1_000, complete: false })
    expect(cut.text).toContain('lines 1-5 of more than 5; the rest: browser_snapshot with cursor: 5')
  })

  it('uses a short marker when the long one would take most of a small budget', () => {
    const cut = cutOutline(outline(100), { ...opts, maxBytes: 200, complete: true })
    expect(bytes(cut.text)).toBeLessThanOrEqual(200)
    expect(cut.text).toMatch(/\[cut at 200 bytes; cursor: \d+ for the rest\]$/)
  })

  it('answers a cursor past the end with the number of lines', () => {
    expect(cutOutline(outline(3), { ...opts, maxBytes: 1_000, cursor: 9, complete: true }).text).toContain(
      '[cursor 9 is past the end: the outline has 3 lines]',
    )
  })
})
