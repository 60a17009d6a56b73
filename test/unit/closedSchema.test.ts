import { describe, expect, it } from 'vitest'
import { closedSchema } from '../../src/closedSchema'
import { compileSchema } from '../../src/validation'

const check = (schema: object, input: unknown) => {
  const compiled = compileSchema(closedSchema(schema))
  if (!compiled.ok) throw new Error(compiled.message)
  return compiled.value(input)
}

describe('closedSchema', () => {
  const note = {
    type: 'object',
    properties: { title: { type: 'string' }, body: { type: 'string' } },
    required: ['title'],
  }

  it('refuses a property the schema does not declare, naming it', () => {
    expect(check(note, { title: 'a', text: 'b' })).toEqual({
      ok: false,
      message: 'input has an unknown property "text"',
    })
    expect(check(note, { title: 'a', body: 'b' })).toMatchObject({ ok: true })
  })

  it('closes nested objects, array items and union branches', () => {
    const schema = {
      type: 'object',
      properties: {
        items: { type: 'array', items: { type: 'object', properties: { id: { type: 'integer' } } } },
        target: {
          anyOf: [
            { type: 'object', properties: { ref: { type: 'string' } }, required: ['ref'] },
            { type: 'object', properties: { selector: { type: 'string' } }, required: ['selector'] },
          ],
        },
      },
    }
    expect(check(schema, { items: [{ id: 1, extra: 2 }] })).toMatchObject({ ok: false })
    expect(check(schema, { target: { ref: 'e1', extra: true } })).toMatchObject({ ok: false })
    expect(check(schema, { items: [{ id: 1 }], target: { selector: 'p' } })).toMatchObject({ ok: true })
  })

  it('leaves schemas that say how to treat other properties, or combine schemas, as they are', () => {
    const open = { ...note, additionalProperties: true }
    expect(check(open, { title: 'a', text: 'b' })).toMatchObject({ ok: true })
    const record = { type: 'object', patternProperties: { '^x': { type: 'string' } } }
    expect(check(record, { x1: 'a', y: 1 })).toMatchObject({ ok: true })
    const intersection = {
      allOf: [
        { type: 'object', properties: { a: { type: 'string' } } },
        { type: 'object', properties: { b: { type: 'string' } } },
      ],
    }
    expect(check(intersection, { a: 'x', b: 'y' })).toMatchObject({ ok: true })
    expect(closedSchema(note)).not.toBe(note)
    expect(note).not.toHaveProperty('additionalProperties')
  })
})
