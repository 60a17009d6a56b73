import { escapedJson } from '../protocol/untrustedText'

/**
 * The canonical JSON of a value, as audit.log holds each entry and as its leaf hash covers it: object
 * keys sorted (by UTF-16 code units), no white space, and the escapes of `escapedJson` (so the same
 * entry always gives the same bytes, and the line stays safe to print).
 *
 * @example
 *   canonicalJson({ tool: 'a', durationMs: 1 }) // '{"durationMs":1,"tool":"a"}'
 */
export function canonicalJson(value: unknown): string {
  return escapedJson(sortedKeys(value))
}

function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys)
  if (value === null || typeof value !== 'object') return value
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(value).sort()) {
    const v = (value as Record<string, unknown>)[key]
    if (v !== undefined) out[key] = sortedKeys(v)
  }
  return out
}
