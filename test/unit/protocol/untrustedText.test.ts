import { describe, expect, it } from 'vitest'
import { escapedJson, neutralizeText } from '../../../src/protocol/untrustedText'

const HIDDEN = '\u202E\u200B\u2066\u2028\u2029\u{E0041}\uFEFF\u00AD\u0085\u007F'

describe('untrustedText', () => {
  it('shows every format, separator and control character of untrusted text as a marker', () => {
    expect(neutralizeText(`a${HIDDEN}b`)).toBe(
      'a⟨U+202E⟩⟨U+200B⟩⟨U+2066⟩⟨U+2028⟩⟨U+2029⟩⟨U+E0041⟩⟨U+FEFF⟩⟨U+00AD⟩⟨U+0085⟩⟨U+007F⟩b',
    )
  })

  it('writes JSON whose bytes hold none of them, and which parses to the same value', () => {
    const value = { tool: `x${HIDDEN}y`, list: [HIDDEN], [`k${HIDDEN}`]: 1 }
    for (const text of [escapedJson(value), escapedJson(value, 2)]) {
      expect(text).not.toMatch(/[\u007F-\u009F\p{Cf}\u2028\u2029]/u)
      expect(JSON.parse(text)).toEqual(value)
    }
    expect(escapedJson({ t: '\u202E' })).toBe('{"t":"\\u202e"}')
    expect(escapedJson({ t: '\u{E0041}' })).toBe('{"t":"\\udb40\\udc41"}')
    // Indentation stays: only characters inside strings are escaped.
    expect(escapedJson({ a: 'plain' }, 2)).toBe('{\n  "a": "plain"\n}')
    expect(escapedJson(undefined)).toBe('null')
  })
})
