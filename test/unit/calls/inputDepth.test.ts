import { describe, expect, it } from 'vitest'
import { tooDeep } from '../../../src/calls/inputDepth'

/** `levels` arrays or objects inside each other, as JSON.parse gives them. */
const nested = (levels: number, kind: 'array' | 'object' = 'object'): unknown =>
  JSON.parse(
    kind === 'array'
      ? `${'['.repeat(levels)}${']'.repeat(levels)}`
      : `${'{"a":'.repeat(levels - 1)}{}${'}'.repeat(levels - 1)}`,
  )

describe('tooDeep', () => {
  it('counts scalars as depth 0 and each object or array as one level', () => {
    expect(tooDeep('text', 0)).toBeNull()
    expect(tooDeep({}, 0)).toBe(1)
    expect(tooDeep({ a: [1] }, 1)).toBe(2)
    expect(tooDeep({ a: [1] }, 2)).toBeNull()
  })

  it('accepts 64 levels and refuses 65, in objects and in arrays', () => {
    expect(tooDeep(nested(64))).toBeNull()
    expect(tooDeep(nested(65))).toBe(65)
    expect(tooDeep(nested(64, 'array'))).toBeNull()
    expect(tooDeep(nested(65, 'array'))).toBe(65)
  })

  it('finds a deep branch beside shallow ones', () => {
    expect(tooDeep({ wide: Array.from({ length: 1000 }, (_, i) => i), deep: nested(64) })).toBe(65)
  })

  it('measures 200,000 levels without exhausting the stack', () => {
    const deep = nested(200_000, 'array')
    expect(tooDeep(deep)).toBe(65)
  })
})
