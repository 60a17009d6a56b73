/**
 * The forms a value may take on its way out, undone before a sink's arguments are matched: URL
 * encoding (also twice), HTML entities, JavaScript/JSON escapes and base64 (standard and URL-safe,
 * also inside a URL or after URL decoding). Each string yields itself and every distinct decoding;
 * anything else (a cipher, a value split in pieces, a paraphrase) is beyond the guard.
 */

const MAX_ROUNDS = 3
const BASE64_RUN = /[A-Za-z0-9+/_-]{12,}={0,2}/g
const utf8 = new TextDecoder('utf-8', { fatal: false })
const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' }

/** Percent-decoding that never throws (a lone `%` stays), with `+` as a space. */
export function urlDecode(text: string): string {
  if (!text.includes('%') && !text.includes('+')) return text
  return text.replace(/\+/g, ' ').replace(/(?:%[0-9a-f]{2})+/gi, (run) => {
    try {
      return decodeURIComponent(run)
    } catch {
      return run
    }
  })
}

export function htmlDecode(text: string): string {
  if (!text.includes('&')) return text
  return text.replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]{2,6});/gi, (whole, body: string) => {
    if (body[0] === '#') {
      const code =
        body[1] === 'x' || body[1] === 'X' ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10)
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole
    }
    return ENTITIES[body.toLowerCase()] ?? whole
  })
}

/** `\uXXXX` and `\xXX` escapes, as a script or JSON text would carry them. */
export function escapeDecode(text: string): string {
  if (!text.includes('\\')) return text
  return text.replace(/\\u([0-9a-f]{4})|\\x([0-9a-f]{2})/gi, (_, u?: string, x?: string) =>
    String.fromCharCode(parseInt(u ?? x ?? '0', 16)),
  )
}

/** Text that is mostly printable: what a decoded base64 run must be to count as a decoding. */
function isMostlyText(text: string): boolean {
  if (text.length === 0 || text.includes('\uFFFD')) return false
  let printable = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c >= 0x20 || c === 0x0a || c === 0x0d || c === 0x09) printable++
  }
  return printable / text.length > 0.95
}

/** Every base64 run in the text decoded (those that decode to text), joined by newlines; '' for none. */
export function base64Decode(text: string): string {
  const decoded: string[] = []
  for (const match of text.matchAll(BASE64_RUN)) {
    // A URL path glues segments with '/': each long segment is also tried alone.
    const runs = match[0].includes('/')
      ? [match[0], ...match[0].split('/').filter((s) => s.length >= 12)]
      : [match[0]]
    for (const found of runs) {
      const run = found.replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, '')
      // A run cut at a wrong boundary decodes to noise and is dropped.
      const textOf = utf8.decode(Buffer.from(run, 'base64'))
      if (isMostlyText(textOf)) decoded.push(textOf)
    }
  }
  return decoded.join('\n')
}

/** The string and each distinct form it decodes to, up to three rounds deep. */
export function decodedForms(text: string): string[] {
  const forms = new Set<string>([text])
  let frontier = [text]
  for (let round = 0; round < MAX_ROUNDS && frontier.length; round++) {
    const next: string[] = []
    for (const form of frontier)
      for (const decoded of [urlDecode(form), htmlDecode(form), escapeDecode(form), base64Decode(form)])
        if (decoded && !forms.has(decoded)) {
          forms.add(decoded)
          next.push(decoded)
        }
    frontier = next
  }
  return [...forms]
}
