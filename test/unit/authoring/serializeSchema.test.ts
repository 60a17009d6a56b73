import { Type } from '@sinclair/typebox'
import { describe, expect, it } from 'vitest'
import { serializeSchema } from '../../../src/authoring/serializeSchema'

const message = (schema: unknown) => {
  const result = serializeSchema(schema, 'tool "t" input')
  return result.ok ? 'ok' : result.message
}

describe('serializeSchema', () => {
  it('drops TypeBox symbols and keeps JSON Schema keywords', () => {
    const schema = Type.Object({
      a: Type.Optional(Type.String({ format: 'email' })),
      b: Type.Array(Type.Integer(), { maxItems: 3 }),
      c: Type.Union([Type.Literal('x'), Type.Null()]),
      d: Type.Record(Type.String(), Type.Number()),
    })
    const result = serializeSchema(schema, 'tool "t" input')
    expect(result.ok).toBe(true)
    if (!result.ok) return
    expect(Object.getOwnPropertySymbols(result.value)).toEqual([])
    expect(Object.getOwnPropertySymbols(result.value.properties as object)).toEqual([])
    expect(JSON.parse(JSON.stringify(result.value))).toEqual(result.value)
    expect(result.value).toMatchObject({
      type: 'object',
      required: ['b', 'c', 'd'],
      properties: {
        a: { type: 'string', format: 'email' },
        b: { type: 'array', items: { type: 'integer' }, maxItems: 3 },
        c: { anyOf: [{ const: 'x', type: 'string' }, { type: 'null' }] },
        d: { type: 'object', patternProperties: { '^(.*)$': { type: 'number' } } },
      },
    })
  })

  it('fails on Type.Transform deep inside, naming the path', () => {
    const when = Type.Transform(Type.String())
      .Decode((v) => new Date(v))
      .Encode((v) => v.toISOString())
    expect(message(Type.Object({ list: Type.Array(Type.Object({ when })) }))).toBe(
      'tool "t" input schema at "properties.list.items.properties.when": Type.Transform cannot be serialized to JSON Schema (it runs code to change values); accept the plain value and convert it inside handle()',
    )
  })

  it.each([
    ['Date', Type.Date()],
    ['Function', Type.Function([], Type.String())],
    ['Undefined', Type.Undefined()],
    ['BigInt', Type.BigInt()],
    ['RegExp', Type.RegExp(/a/)],
    ['Uint8Array', Type.Uint8Array()],
    ['Promise', Type.Promise(Type.String())],
    ['Symbol', Type.Symbol()],
  ])('fails on Type.%s', (kind, schema) => {
    expect(message(Type.Object({ x: schema }))).toBe(
      `tool "t" input schema at "properties.x": Type.${kind}() has no JSON Schema form; describe the value with JSON types`,
    )
  })

  it.each([
    [{ type: 'object', default: undefined }, '"default": undefined cannot be written'],
    [{ type: 'object', default: 10n }, '"default": a bigint cannot be written'],
    [{ type: 'object', default: () => 1 }, '"default": a function cannot be written'],
    [{ type: 'object', default: Symbol('s') }, '"default": a symbol cannot be written'],
    [{ type: 'object', default: new Date(0) }, '"default": a Date value cannot be written'],
    [{ type: 'string', pattern: /a/ }, '"pattern": a RegExp value cannot be written'],
    [{ type: 'number', maximum: Infinity }, '"maximum": Infinity is not a JSON number'],
    [{ type: 'object', default: new Map() }, '"default": a Map cannot be written'],
    ['a string', 'must be a TypeBox schema object'],
  ])('fails on non-JSON value %#', (schema, expected) => {
    expect(message(schema)).toContain(expected)
  })

  it('fails on a schema that contains itself', () => {
    const self: Record<string, unknown> = { type: 'object' }
    self.properties = { me: self }
    expect(message(self)).toContain('"properties.me": the schema refers to itself')
  })

  it('allows the same sub-schema twice', () => {
    const s = Type.String()
    expect(message(Type.Object({ a: s, b: s }))).toBe('ok')
  })
})
