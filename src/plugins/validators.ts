/**
 * Tool input validators, checked when a plugin loads and compiled when first used. Compiling is the
 * dear part of ajv (a few ms per schema, plus ~50 ms for the meta-schema in every new instance), so
 * loading 100 plugins of 20 tools would take seconds; the load-time check is cheap and still fails a
 * plugin whose schema is malformed (meta-schema) or uses a keyword or format ajv's strict mode would
 * refuse, so a typo never validates nothing. Compilation uses one ajv instance per plugin (created on
 * its first call), so `$id`s of different plugins never collide. `bridge-plugin build` compiles every
 * schema up front (`eager`) to catch the rest before the plugin ships.
 */
import { Ajv, type AnySchema, type ErrorObject, type ValidateFunction } from 'ajv'
import addFormats from 'ajv-formats'
import type { ToolManifest } from '../protocol/manifest'
import type { InputCheck } from './types'

const MAX_REPORTED_ERRORS = 5
const AJV_OPTIONS = { strict: true, allErrors: true, allowUnionTypes: true, logger: false } as const

export type CompileResult =
  { ok: true; value: (tool: string, input: unknown) => InputCheck } | { ok: false; message: string }

function createAjv(validateSchema: boolean): Ajv {
  const ajv = new Ajv({ ...AJV_OPTIONS, validateSchema })
  addFormats(ajv)
  return ajv
}

/** Shared by every load-time check: meta-schema validation and the keyword and format tables. */
let checker: Ajv | undefined

export function compileValidators(
  tools: readonly ToolManifest[],
  options: { eager?: boolean } = {},
): CompileResult {
  for (const tool of tools) {
    const problem = schemaProblem(tool.inputSchema)
    if (problem) return { ok: false, message: `tool "${tool.name}" input schema: ${problem}` }
  }
  const schemas = new Map(tools.map((tool) => [tool.name, tool.inputSchema as AnySchema]))
  const compiled = new Map<string, ValidateFunction | string>()
  let ajv: Ajv | undefined
  const compile = (tool: string, schema: AnySchema): ValidateFunction | string => {
    let check = compiled.get(tool)
    if (check === undefined) {
      try {
        // The meta-schema check already ran at load time.
        check = (ajv ??= createAjv(false)).compile(schema)
      } catch (error) {
        check = `tool "${tool}" input schema: ${error instanceof Error ? error.message : String(error)}`
      }
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
      if (check(input)) return { ok: true }
      return { ok: false, message: describeErrors(check.errors ?? []) }
    },
  }
}

/** Why ajv (strict mode) would refuse to compile this schema, found without compiling it; or null. */
function schemaProblem(schema: AnySchema): string | null {
  const ajv = (checker ??= createAjv(true))
  if (!ajv.validateSchema(schema)) return `schema is invalid: ${ajv.errorsText(ajv.errors)}`
  return unknownKeyword(ajv, schema)
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

/** Walks every subschema for keywords and formats ajv does not know (its strict `unknown keyword`). */
function unknownKeyword(ajv: Ajv, schema: unknown): string | null {
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
      const problem = unknownKeyword(ajv, sub)
      if (problem) return problem
    }
  }
  return null
}

/** `limit must be <= 100; title is required` - readable by an agent that has to fix its call. */
export function describeErrors(errors: readonly ErrorObject[]): string {
  const parts = errors.slice(0, MAX_REPORTED_ERRORS).map((e) => {
    const path = e.instancePath ? e.instancePath.slice(1).replaceAll('/', '.') : 'input'
    const params = e.params as Record<string, unknown>
    if (e.keyword === 'required')
      return `${path === 'input' ? '' : `${path}.`}${String(params.missingProperty)} is required`
    if (e.keyword === 'additionalProperties')
      return `${path} has an unknown property "${String(params.additionalProperty)}"`
    if (e.keyword === 'enum') return `${path} must be one of ${JSON.stringify(params.allowedValues)}`
    return `${path} ${e.message ?? 'is invalid'}`
  })
  if (errors.length > MAX_REPORTED_ERRORS) parts.push(`and ${errors.length - MAX_REPORTED_ERRORS} more`)
  return parts.join('; ') || 'input does not match the schema'
}
