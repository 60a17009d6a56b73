import { describe, expect, it } from 'vitest'
import { jsonTextOf } from '../../../src/protocol/jsonText'

describe('jsonTextOf', () => {
  it("is an output's JSON text, made once per object: the answer and the guard's worker get the same text", () => {
    const output = { requests: [{ url: 'https://a.example/x', status: 200 }], note: 'caf\u00e9 \ud83d' }
    const first = jsonTextOf(output)
    expect(JSON.parse(first)).toEqual(output)
    // Made once: a later look at the same object is the text made first, not a new stringify.
    output.note = 'changed'
    expect(jsonTextOf(output)).toBe(first)
    expect(jsonTextOf({ ...output })).toContain('changed')
  })

  it('writes strings, numbers and null as JSON, and undefined as null', () => {
    expect(jsonTextOf('a "b"')).toBe('"a \\"b\\""')
    expect(jsonTextOf(12)).toBe('12')
    expect(jsonTextOf(null)).toBe('null')
    expect(jsonTextOf(undefined)).toBe('null')
  })
})
