/**
 * Tool inputs are checked against closed object schemas: a property the schema does not declare is an
 * `invalid_input` naming it, not silently passed to a tool that ignores it (an agent sending `text`
 * where the tool takes `body` would otherwise create an empty note and think it had written one).
 * JSON Schema itself allows undeclared properties unless `additionalProperties` says otherwise; this
 * departs from that on purpose, for tool inputs only.
 *
 * An object schema is closed where doing so cannot change what else it accepts: it declares
 * `properties`, says nothing of `additionalProperties`, `patternProperties` or
 * `unevaluatedProperties`, and is not combined with other schemas at its own level (`allOf`, `$ref`,
 * `if`...: closing a part of an intersection would refuse the other parts' properties). Schemas under
 * `properties`, `items`, `anyOf` and `oneOf` are closed the same way; everything else is kept as it is.
 */
type SchemaNode = Record<string, unknown>

const isNode = (value: unknown): value is SchemaNode =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

const COMBINED = ['allOf', '$ref', 'if', 'then', 'else', 'not', 'dependentSchemas', 'dependencies']
const OPEN_KEYS = ['additionalProperties', 'patternProperties', 'unevaluatedProperties']

/** A copy of `schema` with its plain object schemas closed (the input is not changed). */
export function closedSchema<T>(schema: T): T {
  return close(schema) as T
}

function close(schema: unknown): unknown {
  if (!isNode(schema)) return schema
  const out: SchemaNode = { ...schema }
  if (isNode(schema.properties)) {
    out.properties = Object.fromEntries(
      Object.entries(schema.properties).map(([name, value]) => [name, close(value)]),
    )
    const closable =
      !OPEN_KEYS.some((key) => Object.hasOwn(schema, key)) &&
      !COMBINED.some((key) => Object.hasOwn(schema, key)) &&
      !Object.hasOwn(schema, 'anyOf') &&
      !Object.hasOwn(schema, 'oneOf')
    if (closable) out.additionalProperties = false
  }
  if (isNode(schema.items)) out.items = close(schema.items)
  else if (Array.isArray(schema.items)) out.items = schema.items.map(close)
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = schema[key]
    if (Array.isArray(branches)) out[key] = branches.map(close)
  }
  return out
}
