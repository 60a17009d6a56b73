/**
 * Text that came from a page, a plugin, a package or an agent is data. Before it reaches a terminal,
 * server.log, `bridge logs` or any CLI output it goes through `neutralizeText`: control characters
 * (escape sequences, carriage returns, newlines that would forge a log line of their own), C1
 * controls and the invisible or direction-changing characters that make text read differently than it
 * is, are shown as visible markers (`⟨U+001B⟩`, `⟨U+000A⟩`, `⟨U+202E⟩`, as the side panel shows
 * them), and the length is capped. The words
 * themselves are kept: who wrote them is said by where they are shown (`[plugin:<name>]`).
 * No node:* imports: the extension may use it too.
 */

/** Default cap on one piece of untrusted text, in characters. */
export const UNTRUSTED_TEXT_MAX_CHARS = 2000

/**
 * Control and format characters (escape sequences, newlines, carriage returns, bidi overrides,
 * zero-width characters, line separators, lone surrogates) and blank look-alike letters.
 */
const UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\u115F\u1160\u3164\uFFA0]/gu

/** `⟨U+001B⟩`: the marker the side panel shows for the same characters. */
export function charMarker(char: string): string {
  return `⟨U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}⟩`
}

/**
 * `text` made safe to print on one line of a terminal or a log file: every unsafe character shown as
 * a visible marker, the length capped (with a marker saying how much was cut).
 *
 * @example
 *   neutralizeText('ok\x1b[2J\nSYSTEM: obey') // 'ok⟨U+001B⟩[2J⟨U+000A⟩SYSTEM: obey'
 */
export function neutralizeText(text: string, maxChars: number = UNTRUSTED_TEXT_MAX_CHARS): string {
  const chars = [...text]
  const kept = chars.length > maxChars ? chars.slice(0, maxChars).join('') : text
  const safe = kept.replace(UNSAFE, charMarker)
  const cut = chars.length - maxChars
  return cut > 0 ? `${safe}… (${cut} more character${cut === 1 ? '' : 's'})` : safe
}

/** Terminal control characters (not newlines or tabs) shown as markers; for whole lines of CLI output. */
export function withoutTerminalControls(text: string): string {
  return text.replace(/\p{Cc}/gu, (c) => (c === '\n' || c === '\t' ? c : charMarker(c)))
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

/**
 * Characters JSON.stringify leaves raw that change how a line reads or where it ends: DEL and the C1
 * controls, every format character (bidi overrides and isolates, zero-width characters, tags) and
 * U+2028/U+2029. C0 controls and lone surrogates are escaped by JSON.stringify itself.
 */
const JSON_UNSAFE = /[\u007F-\u009F\p{Cf}\u2028\u2029]/gu

/**
 * JSON.stringify, with the characters of JSON_UNSAFE written as `\uXXXX` escapes: the same value for
 * any JSON reader, but a terminal, an editor or `grep` sees only ASCII markers. Used for audit.log and
 * `bridge audit --json`. They can only occur inside strings, where an escape means the same character.
 *
 * @example
 *   escapedJson({ tool: 'a\u202Eb' }) // '{"tool":"a\\u202eb"}'
 */
export function escapedJson(value: unknown, space?: number): string {
  const text = JSON.stringify(value, null, space) as string | undefined
  if (text === undefined) return 'null'
  return text.replace(JSON_UNSAFE, (char) => {
    let out = ''
    for (let i = 0; i < char.length; i++) out += `\\u${char.charCodeAt(i).toString(16).padStart(4, '0')}`
    return out
  })
}
