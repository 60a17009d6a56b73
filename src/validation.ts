/**
 * The one place values are checked against JSON Schemas: config files, /ws protocol messages, plugin
 * tool inputs and built-in tool inputs; and how deep a tool's arguments nest, checked before any schema. One Ajv instance, one strictness (strict: an unknown keyword
 * or a malformed schema is an error, not a schema that validates nothing), one error format. A schema
 * is compiled on first use and cached by its text, so a plugin reloaded unchanged is not compiled again;
 * in the built bundles the schemas every start checks, and the meta-schema, come compiled ahead of time
 * (./validationPrecompiled).
 *
 * A plugin's tool input validators (`compileValidators`) come from here too. Compiling is the dear
 * part (a few ms per schema), so loading 100 plugins of 20 tools would take seconds: at load each
 * schema is only checked (meta-schema, and every keyword and format known, so a typo never validates
 * nothing), and compiled on the tool's first call; an unchanged schema comes from the cache.
 * `bridge-plugin build` compiles every schema up front (`eager`) to catch the rest before it ships.
 */
import type { Static, TSchema } from '@sinclair/typebox'
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import addFormats from 'ajv-formats'
import { closedSchema } from './closedSchema'
import { MAX_INPUT_DEPTH } from './protocol/constants'
import type { ToolManifest } from './protocol/manifest'
import { precompiled } from './validationPrecompiled'

export type Validation<T> = { ok: true; value: T } | { ok: false; message: string }
/** A compiled schema: the value back, typed, or the first few problems in one line. */
export type Validator<T = unknown> = (value: unknown) => Validation<T>
/** A tool input's check: it passes, or why not in one line. */
export type InputCheck = { ok: true } | { ok: false; message: string }

const MAX_REPORTED_ERRORS = 5

// addUsedSchema: false keeps a schema's `$id` local to it, so two plugins may use the same `$id`.
// scripts/precompileValidators.mjs compiles with these same options.
export const AJV_OPTIONS = {
  strict: true,
  allErrors: true,
  allowUnionTypes: true,
  addUsedSchema: false,
  logger: false,
} as const
const ajv = new Ajv(AJV_OPTIONS)
addFormats(ajv)
// The meta-schema every schema is checked against (Ajv's default, draft-07), compiled ahead of time
// in the bundles: its entry gets the validator Ajv would have compiled, so Ajv never compiles it.
// (Not `ajv.defaultMeta()`: that compiles it.)
const metaEntry = ajv.schemas['http://json-schema.org/draft-07/schema']
if (precompiled.meta && metaEntry) metaEntry.validate = precompiled.meta

const byObject = new WeakMap<object, ValidateFunction>()
const byText = new Map<string, ValidateFunction>()

function compiled(schema: object): ValidateFunction {
  let check = byObject.get(schema)
  if (check) return check
  const text = JSON.stringify(schema)
  check = byText.get(text) ?? precompiled.byText.get(text)
  if (!check) {
    check = ajv.compile(schema)
    byText.set(text, check)
  }
  byObject.set(schema, check)
  return check
}

/**
 * Compiles `schema` now (or takes it from the cache) and returns its validator; a schema Ajv refuses
 * comes back as `{ ok: false, message }`. `label` names the value's top level in messages (`input`).
 */
export function compileSchema<T = unknown>(schema: object, label = 'input'): Validation<Validator<T>> {
  let check: ValidateFunction
  try {
    check = compiled(schema)
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) }
  }
  return { ok: true, value: (value) => result<T>(check, value, label) }
}

/**
 * Why this Ajv (strict) would refuse to compile `schema`, found without compiling it (cheap: a
 * meta-schema check and a walk over the keywords and formats); null when it would compile.
 */
export function schemaProblem(schema: unknown): string | null {
  if (typeof schema !== 'object' || schema === null) return 'schema must be an object'
  if (!ajv.validateSchema(schema)) return `schema is invalid: ${ajv.errorsText(ajv.errors)}`
  return unknownKeyword(schema)
}

const SUBSCHEMA = [
  'additionalItems',
  'additionalProperties',
  'contains',
  'not',
  'if',
  'then',
  'else',
  'propertyNames',
  'items',
]
const SUBSCHEMA_LIST = ['allOf', 'anyOf', 'oneOf', 'items']
const SUBSCHEMA_MAP = ['properties', 'patternProperties', 'definitions', '$defs', 'dependencies']

/** Walks every subschema for keywords and formats Ajv does not know (its strict `unknown keyword`). */
function unknownKeyword(schema: unknown): string | null {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return null
  const rules = ajv.RULES.keywords
  const record = schema as Record<string, unknown>
  for (const key of Object.keys(record)) {
    if (!rules[key]) return `strict mode: unknown keyword: "${key}"`
    const value = record[key]
    if (key === 'format' && typeof value === 'string' && !(value in ajv.formats))
      return `unknown format "${value}" ignored in schema`
    const nested: unknown[] = []
    if (SUBSCHEMA.includes(key) && !Array.isArray(value)) nested.push(value)
    if (SUBSCHEMA_LIST.includes(key) && Array.isArray(value)) nested.push(...(value as unknown[]))
    if (SUBSCHEMA_MAP.includes(key) && typeof value === 'object' && value !== null)
      nested.push(...Object.values(value as Record<string, unknown>).filter((v) => !Array.isArray(v)))
    for (const sub of nested) {
      const problem = unknownKeyword(sub)
      if (problem) return problem
    }
  }
  return null
}

/**
 * The first depth past `max` that `value` reaches, or null when it stays within, measured without
 * recursion: a value nested thousands of levels deep (a few kilobytes of `[[[[...]]]]`) must not
 * exhaust the stack of a validator or anything after it, so a call's arguments pass this before their
 * schema. A scalar is depth 0, `{}` and `[]` are depth 1, `{ a: [1] }` is depth 2.
 *
 * @example
 *   tooDeep({ a: { b: 1 } }, 1) // 2
 *   tooDeep({ a: { b: 1 } }, 2) // null
 */
export function tooDeep(value: unknown, max = MAX_INPUT_DEPTH): number | null {
  const stack: Array<[unknown, number]> = [[value, 0]]
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!
    if (typeof item !== 'object' || item === null) continue
    const here = depth + 1
    if (here > max) return here
    for (const child of Array.isArray(item) ? item : Object.values(item)) stack.push([child, here])
  }
  return null
}

/** Checks `value` against `schema`, compiling it on first use; never throws. */
export function validate<S extends TSchema>(
  schema: S,
  value: unknown,
  label = 'input',
): Validation<Static<S>> {
  let check: ValidateFunction
  try {
    check = compiled(schema)
  } catch (error) {
    return {
      ok: false,
      message: `the schema is invalid: ${error instanceof Error ? error.message : String(error)}`,
    }
  }
  return result<Static<S>>(check, value, label)
}

function result<T>(check: ValidateFunction, value: unknown, label: string): Validation<T> {
  if (check(value)) return { ok: true, value: value as T }
  return { ok: false, message: describeErrors(check.errors ?? [], label) }
}

/**
 * `limit must be <= 100; title is required`: readable by a person editing a file and by an agent that
 * has to fix its call. Paths are dotted; the top level is called `label`.
 */
export function describeErrors(errors: readonly ErrorObject[], label = 'input'): string {
  const seen = new Set<string>()
  const parts: string[] = []
  for (const e of errors) {
    const path = e.instancePath ? e.instancePath.slice(1).replaceAll('/', '.') : label
    // A union of literals (off/ask/auto) fails as one `const` error per branch: list the choices once.
    if (e.keyword === 'const') {
      if (seen.has(path)) continue
      seen.add(path)
      const choices = errors
        .filter((o) => o.keyword === 'const' && o.instancePath === e.instancePath)
        .map((o) => JSON.stringify((o.params as { allowedValue: unknown }).allowedValue))
      parts.push(
        choices.length > 1
          ? `${path} must be one of ${choices.join(', ')}`
          : `${path} ${e.message ?? 'is invalid'}`,
      )
      continue
    }
    // The branches of such a union already said it; `anyOf` adds nothing.
    if (e.keyword === 'anyOf' && seen.has(path)) continue
    const params = e.params as Record<string, unknown>
    if (e.keyword === 'required')
      parts.push(`${path === label ? '' : `${path}.`}${String(params.missingProperty)} is required`)
    else if (e.keyword === 'additionalProperties')
      parts.push(`${path} has an unknown property "${String(params.additionalProperty)}"`)
    else if (e.keyword === 'enum')
      parts.push(`${path} must be one of ${JSON.stringify(params.allowedValues)}`)
    else parts.push(`${path} ${e.message ?? 'is invalid'}`)
  }
  const shown = parts.slice(0, MAX_REPORTED_ERRORS)
  if (parts.length > MAX_REPORTED_ERRORS) shown.push(`and ${parts.length - MAX_REPORTED_ERRORS} more`)
  return shown.join('; ') || `${label} does not match the schema`
}

export type CompileResult =
  { ok: true; value: (tool: string, input: unknown) => InputCheck } | { ok: false; message: string }

export function compileValidators(
  tools: readonly ToolManifest[],
  options: { eager?: boolean } = {},
): CompileResult {
  for (const tool of tools) {
    const problem = schemaProblem(tool.inputSchema)
    if (problem) return { ok: false, message: `tool "${tool.name}" input schema: ${problem}` }
  }
  const schemas = new Map(tools.map((tool) => [tool.name, tool.inputSchema]))
  const compiled = new Map<string, Validator | string>()
  const compile = (tool: string, schema: object): Validator | string => {
    let check = compiled.get(tool)
    if (check === undefined) {
      // Closed: a property the tool does not declare is refused by name (src/closedSchema.ts).
      const result = compileSchema(closedSchema(schema))
      check = result.ok ? result.value : `tool "${tool}" input schema: ${result.message}`
      compiled.set(tool, check)
    }
    return check
  }
  if (options.eager)
    for (const [tool, schema] of schemas) {
      const check = compile(tool, schema)
      if (typeof check === 'string') return { ok: false, message: check }
    }
  return {
    ok: true,
    value: (tool, input) => {
      const schema = schemas.get(tool)
      if (schema === undefined) return { ok: false, message: `no tool "${tool}"` }
      const check = compile(tool, schema)
      if (typeof check === 'string') return { ok: false, message: `${check}; the plugin must fix the schema` }
      const result = check(input)
      return result.ok ? { ok: true } : result
    },
  }
}
