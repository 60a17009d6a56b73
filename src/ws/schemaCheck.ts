import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv'
import type { TSchema } from '@sinclair/typebox'

export type SchemaCheck = { ok: true } | { ok: false; message: string }

// One ajv instance for the wire schemas; each schema object is compiled once and cached.
const ajv = new Ajv({ allErrors: false, strict: false })
const compiled = new WeakMap<TSchema, ValidateFunction>()

/** Validates a value against a TypeBox schema of src/protocol; never throws. */
export function checkSchema(schema: TSchema, value: unknown, label = 'params'): SchemaCheck {
  let validate = compiled.get(schema)
  if (!validate) {
    validate = ajv.compile(schema)
    compiled.set(schema, validate)
  }
  if (validate(value)) return { ok: true }
  return { ok: false, message: describeErrors(validate.errors ?? [], label) }
}

function describeErrors(errors: ErrorObject[], label: string): string {
  const first = errors[0]
  if (!first) return 'invalid value'
  const where = first.instancePath === '' ? label : `${label}${first.instancePath.replaceAll('/', '.')}`
  return `${where} ${first.message ?? 'is invalid'}`
}
