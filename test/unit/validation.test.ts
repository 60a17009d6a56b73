import { Type } from '@sinclair/typebox'
import { describe, expect, it } from 'vitest'
import { compileSchema, schemaProblem, tooDeep, validate } from '../../src/validation'

const Note = Type.Object(
  {
    title: Type.String({ minLength: 1 }),
    limit: Type.Optional(Type.Integer({ maximum: 100 })),
    permission: Type.Optional(Type.Union([Type.Literal('off'), Type.Literal('ask'), Type.Literal('auto')])),
  },
  { additionalProperties: false },
)

describe('validation', () => {
  it('returns the value, typed, when it matches', () => {
    expect(validate(Note, { title: 'a', limit: 3 })).toEqual({ ok: true, value: { title: 'a', limit: 3 } })
  })

  it('names every problem by its path in one line, the top level by its label', () => {
    expect(validate(Note, { limit: 101, extra: 1 })).toEqual({
      ok: false,
      message: 'title is required; input has an unknown property "extra"; limit must be <= 100',
    })
    expect(validate(Note, [], 'the top level')).toEqual({
      ok: false,
      message: 'the top level must be object',
    })
  })

  it('lists the choices of a union of literals once', () => {
    expect(validate(Note, { title: 'a', permission: 'always' }, 'params')).toEqual({
      ok: false,
      message: 'permission must be one of "off", "ask", "auto"',
    })
  })

  it('compiles a schema once and serves an equal one from the cache', () => {
    const first = compileSchema({ type: 'object', properties: { n: { type: 'number' } } })
    const again = compileSchema({ type: 'object', properties: { n: { type: 'number' } } })
    expect(first.ok && again.ok).toBe(true)
    if (!first.ok || !again.ok) return
    expect(first.value({ n: 'x' })).toEqual({ ok: false, message: 'n must be number' })
    expect(again.value({ n: 1 })).toEqual({ ok: true, value: { n: 1 } })
  })

  it('lets two schemas use the same $id (two plugins never collide)', () => {
    const id = 'https://plugins.example/input.json'
    const a = compileSchema({ $id: id, type: 'object', properties: { a: {} }, required: ['a'] })
    const b = compileSchema({ $id: id, type: 'object', properties: { b: {} }, required: ['b'] })
    expect(a.ok && b.ok).toBe(true)
    if (!a.ok || !b.ok) return
    expect(a.value({ a: 1 }).ok).toBe(true)
    expect(b.value({ a: 1 })).toEqual({ ok: false, message: 'b is required' })
  })

  it('is strict: an unknown keyword is an error, found at load time without compiling', () => {
    expect(schemaProblem({ type: 'object', properties: { n: { type: 'string', maxLenght: 3 } } })).toBe(
      'strict mode: unknown keyword: "maxLenght"',
    )
    expect(schemaProblem({ type: 'strnig' })).toMatch(/^schema is invalid: /)
    expect(schemaProblem({ type: 'string', format: 'email' })).toBeNull()
    expect(compileSchema({ type: 'object', colour: 'red' })).toMatchObject({
      ok: false,
      message: expect.stringContaining('unknown keyword: "colour"'),
    })
  })
})

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
