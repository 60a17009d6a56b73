/**
 * Validation of bridge's own files against their TypeBox schemas, with messages that name the file,
 * the property and the problem. Validators are compiled once.
 */
import type { TSchema, Static } from '@sinclair/typebox'
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'

const ajv = new Ajv({ allErrors: false, strict: false })
const compiled = new WeakMap<TSchema, ValidateFunction>()

export type Validation<T> = { ok: true; value: T } | { ok: false; message: string }

export function validate<S extends TSchema>(schema: S, value: unknown): Validation<Static<S>> {
  let check = compiled.get(schema)
  if (!check) {
    check = ajv.compile(schema)
    compiled.set(schema, check)
  }
  if (check(value)) return { ok: true, value: value as Static<S> }
  return { ok: false, message: describe(check.errors ?? []) }
}

function describe(errors: ErrorObject[]): string {
  const first = errors[0]
  if (!first) return 'does not match the expected shape'
  const where = first.instancePath ? `"${first.instancePath.slice(1).replaceAll('/', '.')}"` : 'the top level'
  // A union of literals (e.g. off/ask/auto) fails as one `const` error per branch: list the choices.
  const consts = errors.filter((e) => e.keyword === 'const' && e.instancePath === first.instancePath)
  if (consts.length > 1) {
    const choices = consts.map((e) => JSON.stringify((e.params as { allowedValue: unknown }).allowedValue))
    return `${where} must be one of ${choices.join(', ')}`
  }
  return `${where} ${first.message ?? 'is invalid'}`
}
