import { describe, expect, it } from 'vitest'
import { visibleSegments, visibleText } from '../../../extension/lib/visibleText'

describe('visibleText', () => {
  it('shows a right-to-left override as a marker instead of reversing what follows', () => {
    expect(visibleText('invoice\u202Eexe.txt')).toBe('invoice⟨U+202E⟩exe.txt')
  })

  it('marks bidi isolates, zero-width characters, C0 and C1 controls, DEL and separators', () => {
    const text = 'a\u2066b\u2069c\u200Bd\u200De\u0007f\u0085g\u007Fh\u2028i\u2029j\uFEFFk\u00ADl\u061Cm'
    expect(visibleText(text)).toBe(
      'a⟨U+2066⟩b⟨U+2069⟩c⟨U+200B⟩d⟨U+200D⟩e⟨U+0007⟩f⟨U+0085⟩g⟨U+007F⟩h⟨U+2028⟩i⟨U+2029⟩j⟨U+FEFF⟩k⟨U+00AD⟩l⟨U+061C⟩m',
    )
  })

  it('marks characters that render as nothing: tags, blank fillers, lone surrogates', () => {
    expect(visibleText('x\u{E0041}y\u3164z\uD800w')).toBe('x⟨U+E0041⟩y⟨U+3164⟩z⟨U+D800⟩w')
  })

  it('keeps newlines, tabs are marked, and ordinary text from any script is left alone', () => {
    expect(visibleText('line one\nline\ttwo')).toBe('line one\nline⟨U+0009⟩two')
    expect(visibleText('Grüße, привет, مرحبا, 你好 😀')).toBe('Grüße, привет, مرحبا, 你好 😀')
  })

  it('splits text into plain runs and markers for rendering', () => {
    expect(visibleSegments('a\u202Eb')).toEqual([
      { text: 'a' },
      { text: '⟨U+202E⟩', marker: true },
      { text: 'b' },
    ])
    expect(visibleSegments('')).toEqual([{ text: '' }])
    expect(visibleSegments('\u200B')).toEqual([{ text: '⟨U+200B⟩', marker: true }])
  })
})
