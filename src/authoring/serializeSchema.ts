/**
 * Turns a TypeBox schema into plain JSON Schema for tools.json. TypeBox schemas are JSON Schema
 * objects with a few symbol-keyed markers; those are dropped. Anything that JSON Schema cannot carry
 * (transforms, functions, dates, regexps, bigints, undefined, TypeBox's JavaScript-only types) fails,
 * and the message names the tool and the property path so the author knows what to change.
 */

const TRANSFORM = Symbol.for('TypeBox.Transform')
const KIND = Symbol.for('TypeBox.Kind')

/** TypeBox kinds with no JSON Schema meaning: validation of them needs JavaScript. */
const JS_ONLY_KINDS = new Set([
  'AsyncIterator',
  'BigInt',
  'Constructor',
  'Date',
  'Function',
  'Iterator',
  'Promise',
  'RegExp',
  'Symbol',
  'Uint8Array',
  'Undefined',
  'Void',
])

export type SerializeResult = { ok: true; value: Record<string, unknown> } | { ok: false; message: string }

/**
 * @param where e.g. `tool "create_note" input`: prefixes every error message.
 */
export function serializeSchema(schema: unknown, where: string): SerializeResult {
  const problem = { message: '' }
  const fail = (path: string, why: string): null => {
    problem.message = `${where} schema at ${path === '' ? 'the top level' : `"${path}"`}: ${why}`
    return null
  }

  const visit = (value: unknown, path: string, seen: Set<object>): unknown => {
    switch (typeof value) {
      case 'string':
      case 'boolean':
        return value
      case 'number':
        return Number.isFinite(value) ? value : fail(path, `${value} is not a JSON number`)
      case 'undefined':
        return fail(path, 'undefined cannot be written to JSON Schema; leave the key out instead')
      case 'bigint':
        return fail(path, 'a bigint cannot be written to JSON; use Type.Integer()')
      case 'function':
        return fail(path, 'a function cannot be written to JSON Schema')
      case 'symbol':
        return fail(path, 'a symbol cannot be written to JSON Schema')
    }
    if (value === null) return null
    const obj = value as Record<string | symbol, unknown>
    if (seen.has(obj)) return fail(path, 'the schema refers to itself; use Type.Recursive() or Type.Ref()')
    const tag = Object.prototype.toString.call(obj)
    if (tag === '[object Date]')
      return fail(path, 'a Date value cannot be written to JSON Schema; use an ISO string')
    if (tag === '[object RegExp]')
      return fail(path, 'a RegExp value cannot be written to JSON Schema; use a pattern string')
    if (TRANSFORM in obj)
      return fail(
        path,
        'Type.Transform cannot be serialized to JSON Schema (it runs code to change values); accept the plain value and convert it inside handle()',
      )
    const kind = obj[KIND]
    if (typeof kind === 'string' && JS_ONLY_KINDS.has(kind))
      return fail(path, `Type.${kind}() has no JSON Schema form; describe the value with JSON types`)

    seen.add(obj)
    try {
      if (Array.isArray(obj)) {
        const out: unknown[] = []
        for (let i = 0; i < obj.length; i++) {
          const item = visit(obj[i], `${path}[${i}]`, seen)
          if (problem.message) return null
          out.push(item)
        }
        return out
      }
      if (tag !== '[object Object]')
        return fail(path, `a ${tag.slice(8, -1)} cannot be written to JSON Schema`)
      const out: Record<string, unknown> = {}
      for (const key of Object.keys(obj)) {
        const item = visit(obj[key], path === '' ? key : `${path}.${key}`, seen)
        if (problem.message) return null
        out[key] = item
      }
      return out
    } finally {
      seen.delete(obj)
    }
  }

  if (typeof schema !== 'object' || schema === null || Array.isArray(schema))
    return { ok: false, message: `${where} schema must be a TypeBox schema object (e.g. Type.Object({...}))` }
  const value = visit(schema, '', new Set())
  if (problem.message) return { ok: false, message: problem.message }
  return { ok: true, value: value as Record<string, unknown> }
}
