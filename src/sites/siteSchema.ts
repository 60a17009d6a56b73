/**
 * A page's input schema, checked before any tool of the page is listed: it must be JSON, an object
 * schema, valid JSON Schema (draft-07, as the plugins' schemas), and safe to run in the daemon. Ajv
 * turns a schema into code and runs its regular expressions on the event loop, so a page's schema gets
 * its own Ajv instance, a size cap (the extension's), Ajv's "secure schema" check (no `uniqueItems`
 * without `maxItems`...), no regular expressions at all (`pattern`, `patternProperties`: a crafted one
 * could stall the daemon), formats not checked (their checks are regular expressions too), and
 * compiled validators are cached in a bounded map. A schema that fails any of this makes the tool unavailable, with the reason.
 */
import { Ajv, type ValidateFunction } from 'ajv'
import secureMeta from 'ajv/dist/refs/json-schema-secure.json' with { type: 'json' }
import type { Validation, Validator } from '../validation'

const CACHE_MAX = 256
const ajv = new Ajv({
  strict: false,
  allErrors: false,
  addUsedSchema: false,
  logger: false,
  validateFormats: false,
})
// Compiled on the first page schema, not at start (it compiles Ajv's meta-schema for this instance too).
let secureCheck: ValidateFunction | undefined
const isSecure = (): ValidateFunction => (secureCheck ??= ajv.compile(secureMeta as object))
const cache = new Map<string, ValidateFunction>()

const REGEX_KEYWORDS = new Set(['pattern', 'patternProperties'])
const FORBIDDEN_KEYWORDS = new Set(['$id', '$schema', '$dynamicRef', '$recursiveRef'])

function findKeyword(value: unknown, keys: ReadonlySet<string>, depth = 0): string | undefined {
  if (depth > 32) return '(nesting deeper than 32 levels)'
  if (value === null || typeof value !== 'object') return undefined
  if (Array.isArray(value)) {
    for (const item of value) {
      const found = findKeyword(item, keys, depth + 1)
      if (found) return found
    }
    return undefined
  }
  for (const [key, child] of Object.entries(value)) {
    // `properties` names are data, not keywords: a property may well be called "pattern".
    if (keys.has(key) && typeof child !== 'object') return key
    if (key === 'patternProperties' && keys.has(key)) return key
    if (key === 'properties' && child && typeof child === 'object') {
      for (const sub of Object.values(child as Record<string, unknown>)) {
        const found = findKeyword(sub, keys, depth + 1)
        if (found) return found
      }
      continue
    }
    const found = findKeyword(child, keys, depth + 1)
    if (found) return found
  }
  return undefined
}

/** A copy of `schema` without its `format` keywords (property names called "format" stay). */
function withoutFormats(value: unknown, depth = 0): unknown {
  if (depth > 32 || value === null || typeof value !== 'object') return value
  if (Array.isArray(value)) return value.map((item) => withoutFormats(item, depth + 1))
  const out: Record<string, unknown> = {}
  for (const [key, child] of Object.entries(value)) {
    if (key === 'format' && typeof child === 'string') continue
    out[key] =
      key === 'properties' && child && typeof child === 'object' && !Array.isArray(child)
        ? Object.fromEntries(
            Object.entries(child as Record<string, unknown>).map(([name, sub]) => [
              name,
              withoutFormats(sub, depth + 1),
            ]),
          )
        : withoutFormats(child, depth + 1)
  }
  return out
}

export interface SiteSchema {
  /** The schema object, as the page gave it. */
  schema: Record<string, unknown>
  validate: Validator
}

/** Parses and compiles a page's schema text (absent: an empty object schema). */
export function compileSiteSchema(text: string | undefined, tooLong: boolean): Validation<SiteSchema> {
  if (tooLong) return { ok: false, message: 'its input schema is longer than bridge accepts from a page' }
  let schema: unknown = { type: 'object', properties: {} }
  if (text !== undefined && text.trim() !== '') {
    try {
      schema = JSON.parse(text)
    } catch {
      return { ok: false, message: 'its input schema is not JSON' }
    }
  }
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema))
    return { ok: false, message: 'its input schema is not a JSON Schema object' }
  const object = schema as Record<string, unknown>
  if (object.type !== undefined && object.type !== 'object')
    return { ok: false, message: 'its input schema does not describe an object (type must be "object")' }
  const regex = findKeyword(object, REGEX_KEYWORDS)
  if (regex)
    return {
      ok: false,
      message: `its input schema uses "${regex}": bridge runs no regular expression from a page`,
    }
  const forbidden = findKeyword(object, FORBIDDEN_KEYWORDS)
  if (forbidden)
    return {
      ok: false,
      message: `its input schema uses "${forbidden}", which bridge does not accept from a page`,
    }
  if (!ajv.validateSchema(object))
    return {
      ok: false,
      message: `its input schema is not valid JSON Schema: ${ajv.errorsText(ajv.errors).slice(0, 300)}`,
    }
  // Formats are not checked at all here (validateFormats: false), so the secure check's rule for them
  // (a maxLength beside every format) does not apply: it looks at the schema without them.
  if (!isSecure()(withoutFormats(object)))
    return {
      ok: false,
      message: `its input schema is unsafe to check: ${ajv.errorsText(isSecure().errors).slice(0, 300)}`,
    }
  const key = JSON.stringify(object)
  let check = cache.get(key)
  if (!check) {
    try {
      check = ajv.compile(object)
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error)
      return { ok: false, message: `its input schema does not compile: ${why.slice(0, 300)}` }
    }
    if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value as string)
    cache.set(key, check)
  }
  const compiled = check
  return {
    ok: true,
    value: {
      schema: object,
      validate: (value) =>
        compiled(value)
          ? { ok: true, value }
          : { ok: false, message: ajv.errorsText(compiled.errors, { dataVar: 'input' }).slice(0, 1000) },
    },
  }
}
