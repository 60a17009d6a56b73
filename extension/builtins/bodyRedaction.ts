/**
 * Bodies and WebSocket frames under the rule of ./credentialRedaction, for calls no person approved.
 * What the page sends (request bodies, frames both ways) passes only where known harmless: JSON keeps
 * its shape and keys, with values only under harmless names (and `true`, `false`, `null`); a GraphQL
 * document keeps its text without string and number literals; form and multipart fields keep their
 * names, values only under harmless names; any other text is withheld whole. Response bodies are the
 * site's own data, which the agent reads for a reason: only values under credential-looking names are
 * withheld there (see docs/security.md for what that cannot stop). Pure functions.
 */
import { isHarmlessParam, REDACTED, redactParams, type Withheld } from './credentialRedaction'

/** Field names that carry secrets in the site's own answers (OAuth responses, session payloads). */
const SECRET_NAME =
  /(token|secret|passw(or)?d|pwd|signature|api[-_]?key|credential|session|cookie|auth|otp|^code$|^key$|^sig$|^sid$|^jwt$)/i

/** A JSON value with the values of the page withheld unless harmless; `name` is the key it sits under. */
function allowJson(value: unknown, name: string | undefined, withheld: Withheld): unknown {
  if (Array.isArray(value)) return value.map((v) => allowJson(v, name, withheld))
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, allowJson(v, k, withheld)]))
  if (value === null || typeof value === 'boolean') return value
  if (typeof value === 'string' && name === 'query' && isGraphql(value)) return redactGraphql(value, withheld)
  if (name !== undefined && isHarmlessParam(name)) return value
  if (value === '') return value
  withheld.add(`body field ${name ?? '(value)'}`)
  return REDACTED
}

function denyJson(value: unknown, withheld: Withheld): unknown {
  if (Array.isArray(value)) return value.map((v) => denyJson(v, withheld))
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => {
        if (SECRET_NAME.test(k) && (v === null || typeof v !== 'object')) {
          withheld.add(`response field ${k}`)
          return [k, REDACTED]
        }
        return [k, denyJson(v, withheld)]
      }),
    )
  return value
}

const isGraphql = (text: string): boolean => /^\s*(query|mutation|subscription|fragment|\{)/.test(text)

/** A GraphQL document without its literals: `login(password: "x", pin: 1)` -> `login(password: "[redacted]", pin: [redacted])`. */
export function redactGraphql(text: string, withheld: Withheld): string {
  let changed = false
  const out = text
    .replace(/"""[\s\S]*?"""|"(?:[^"\\\n]|\\.)*"/g, () => {
      changed = true
      return `"${REDACTED}"`
    })
    .replace(/(:\s*)-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?\b/g, (_all, colon: string) => {
      changed = true
      return `${colon}${REDACTED}`
    })
  if (changed) withheld.add('GraphQL literals')
  return out
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown }
  } catch {
    return { ok: false }
  }
}

/** `--boundary` parts: each field's name kept, its value only when the name is harmless. */
function redactMultipart(text: string, withheld: Withheld): string | null {
  const boundary = /^(--[^\r\n]+)\r?\n/.exec(text)?.[1]
  if (!boundary) return null
  return text
    .split(boundary)
    .map((part) => {
      const split = /\r?\n\r?\n/.exec(part)
      if (!split) return part
      const head = part.slice(0, split.index + split[0].length)
      const rest = part.slice(split.index + split[0].length)
      const ending = /\r?\n$/.exec(rest)?.[0] ?? ''
      const name = /name="([^"]*)"/i.exec(head)?.[1] ?? '(part)'
      if (!/filename=/i.test(head) && isHarmlessParam(name)) return part
      withheld.add(`form field ${name}`)
      return `${head}${REDACTED}${ending}`
    })
    .join(boundary)
}

/** A request body the page sent, as the agent may see it without approval. */
export function redactRequestBody(text: string, contentType: string | undefined, withheld: Withheld): string {
  const json = parseJson(text)
  if (json.ok) return JSON.stringify(allowJson(json.value, undefined, withheld))
  if (/multipart\/form-data/i.test(contentType ?? '') || /^--\S+\r?\n[Cc]ontent-[Dd]isposition/.test(text)) {
    const multipart = redactMultipart(text, withheld)
    if (multipart !== null) return multipart
  }
  if (/x-www-form-urlencoded/i.test(contentType ?? '') || /^[^\s=&]+=[^\s]*$/.test(text))
    return redactParams(text, withheld, 'form field')
  return withheldText(text, withheld, 'request body')
}

/** A response body: the site's data, with credential-named JSON fields withheld. */
export function redactResponseBody(text: string, withheld: Withheld): string {
  const json = parseJson(text)
  return json.ok ? JSON.stringify(denyJson(json.value, withheld)) : text
}

/** A WebSocket frame, either way: JSON under the request rule, any other text withheld. */
export function redactFrame(text: string, withheld: Withheld): string {
  const json = parseJson(text)
  if (json.ok && json.value !== null && typeof json.value === 'object')
    return JSON.stringify(allowJson(json.value, undefined, withheld))
  return withheldText(text, withheld, 'frame text')
}

function withheldText(text: string, withheld: Withheld, what: string): string {
  if (text === '') return text
  withheld.add(what)
  return `${REDACTED} (${text.length} characters)`
}
