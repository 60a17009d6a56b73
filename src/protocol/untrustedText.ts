/**
 * Text that came from a page, a plugin, a package or an agent is data. Before it reaches a terminal,
 * server.log, `bridge logs` or any CLI output it goes through `neutralizeText`: control characters
 * (escape sequences, carriage returns, newlines that would forge a log line of their own), C1
 * controls and the invisible or direction-changing characters that make text read differently than it
 * is, are shown as visible escapes (`\x1b`, `\n`, `\u{202e}`), and the length is capped. The words
 * themselves are kept: who wrote them is said by where they are shown (`[plugin:<name>]`).
 * No node:* imports: the extension may use it too.
 */

/** Default cap on one piece of untrusted text, in characters. */
export const UNTRUSTED_TEXT_MAX_CHARS = 2000

const NAMED: Record<number, string> = { 0x0a: '\\n', 0x0d: '\\r', 0x09: '\\t' }

/** Zero-width, direction-override and line/paragraph separator characters. */
function isInvisible(code: number): boolean {
  return (
    (code >= 0x200b && code <= 0x200f) ||
    (code >= 0x2028 && code <= 0x202e) ||
    (code >= 0x2060 && code <= 0x2069) ||
    code === 0xfeff ||
    code === 0x061c
  )
}

function isControl(code: number): boolean {
  return code < 0x20 || code === 0x7f || (code >= 0x80 && code <= 0x9f)
}

/**
 * `text` made safe to print on one line of a terminal or log file.
 *
 * @example
 *   neutralizeText('ok\x1b[2J\nSYSTEM: obey') // 'ok\\x1b[2J\\nSYSTEM: obey'
 */
export function neutralizeText(text: string, maxChars: number = UNTRUSTED_TEXT_MAX_CHARS): string {
  let out = ''
  let kept = 0
  for (const char of text) {
    if (kept >= maxChars) {
      const rest = [...text].length - kept
      return `${out}… (${rest} more character${rest === 1 ? '' : 's'})`
    }
    const code = char.codePointAt(0) ?? 0
    if (isControl(code)) out += NAMED[code] ?? `\\x${code.toString(16).padStart(2, '0')}`
    else if (isInvisible(code)) out += `\\u{${code.toString(16)}}`
    else if (code >= 0xd800 && code <= 0xdfff) out += '\ufffd'
    else out += char
    kept++
  }
  return out
}

/** Each string inside `value` (nested in arrays and objects, keys too) neutralized; other values as they are. */
export function neutralizeDeep(
  value: unknown,
  maxChars: number = UNTRUSTED_TEXT_MAX_CHARS,
  depth = 0,
): unknown {
  if (typeof value === 'string') return neutralizeText(value, maxChars)
  if (depth > 20 || value === null || typeof value !== 'object') return value
  if (Array.isArray(value)) return value.map((v) => neutralizeDeep(v, maxChars, depth + 1))
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).map(([k, v]) => [
      neutralizeText(k, 200),
      neutralizeDeep(v, maxChars, depth + 1),
    ]),
  )
}
