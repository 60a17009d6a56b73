/**
 * A small, strict XML tokenizer for plugin icons: start tags (with their attributes), end tags, text
 * and comments, with character references decoded. It parses well-formed markup only and refuses
 * everything that lets two parsers disagree about what the markup means: DOCTYPE (and so every entity
 * declaration), CDATA sections, processing instructions other than a leading `<?xml ...?>`, unquoted or
 * repeated attributes, `<` inside attribute values, and entity references other than XML's five.
 */

export type XmlToken =
  | { kind: 'open'; name: string; attributes: Array<[string, string]>; selfClosing: boolean }
  | { kind: 'close'; name: string }
  | { kind: 'text'; text: string }

export type TokenizeResult = { ok: true; tokens: XmlToken[] } | { ok: false; reason: string }

const NAME = /[A-Za-z_][A-Za-z0-9_.:-]*/y
const SPACE = /[ \t\r\n]*/y
const PREDEFINED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" }

class Refused extends Error {}

export function tokenizeXml(source: string): TokenizeResult {
  try {
    return { ok: true, tokens: tokenize(source) }
  } catch (error) {
    if (error instanceof Refused) return { ok: false, reason: error.message }
    throw error
  }
}

function tokenize(source: string): XmlToken[] {
  const tokens: XmlToken[] = []
  let at = 0
  const startsWith = (s: string) => source.startsWith(s, at)
  const name = (): string => {
    NAME.lastIndex = at
    const match = NAME.exec(source)
    if (!match) throw new Refused(`a tag or attribute name is malformed at character ${at}`)
    at = NAME.lastIndex
    return match[0]
  }
  const skipSpace = (): boolean => {
    SPACE.lastIndex = at
    SPACE.exec(source)
    const moved = SPACE.lastIndex > at
    at = SPACE.lastIndex
    return moved
  }

  if (startsWith('\ufeff')) at = 1
  // Only the XML declaration itself (`<?xml` then a space): `<?xml-stylesheet ...?>` is an instruction.
  if (/^<\?xml[ \t\r\n]/.test(source.slice(at, at + 6))) {
    const end = source.indexOf('?>', at)
    if (end < 0) throw new Refused('the XML declaration is not closed')
    at = end + 2
  }
  while (at < source.length) {
    if (startsWith('<!--')) {
      const end = source.indexOf('-->', at + 4)
      if (end < 0) throw new Refused('a comment is not closed')
      at = end + 3
    } else if (startsWith('<!')) {
      throw new Refused(
        startsWith('<![CDATA[')
          ? 'it contains a CDATA section'
          : 'it contains a DOCTYPE or other declaration (entity declarations are not allowed)',
      )
    } else if (startsWith('<?')) {
      throw new Refused('it contains a processing instruction')
    } else if (startsWith('</')) {
      at += 2
      const tag = name()
      skipSpace()
      if (!startsWith('>')) throw new Refused(`the end tag </${tag}> is malformed`)
      at += 1
      tokens.push({ kind: 'close', name: tag })
    } else if (startsWith('<')) {
      at += 1
      const tag = name()
      const attributes: Array<[string, string]> = []
      for (;;) {
        const spaced = skipSpace()
        if (startsWith('/>') || startsWith('>')) break
        if (!spaced) throw new Refused(`the tag <${tag}> is malformed`)
        const attribute = name()
        skipSpace()
        if (!startsWith('=')) throw new Refused(`the attribute ${attribute} of <${tag}> has no value`)
        at += 1
        skipSpace()
        const quote = source[at]
        if (quote !== '"' && quote !== "'")
          throw new Refused(`the attribute ${attribute} of <${tag}> is not quoted`)
        const end = source.indexOf(quote, at + 1)
        if (end < 0) throw new Refused(`the attribute ${attribute} of <${tag}> is not closed`)
        const raw = source.slice(at + 1, end)
        if (raw.includes('<')) throw new Refused(`the attribute ${attribute} of <${tag}> contains "<"`)
        if (attributes.some(([n]) => n === attribute))
          throw new Refused(`the attribute ${attribute} appears twice on <${tag}>`)
        attributes.push([attribute, decode(raw)])
        at = end + 1
      }
      const selfClosing = startsWith('/>')
      at += selfClosing ? 2 : 1
      tokens.push({ kind: 'open', name: tag, attributes, selfClosing })
    } else {
      const end = source.indexOf('<', at)
      const raw = source.slice(at, end < 0 ? source.length : end)
      if (raw.includes(']]>')) throw new Refused('text contains "]]>"')
      tokens.push({ kind: 'text', text: decode(raw) })
      at = end < 0 ? source.length : end
    }
  }
  return tokens
}

/** Decodes XML's five named references and numeric references; any other `&` is refused. */
function decode(raw: string): string {
  return raw.replace(/&([^;&]*);?/g, (whole, ref: string) => {
    if (!whole.endsWith(';')) throw new Refused('it contains a bare "&"')
    const named = PREDEFINED[ref]
    if (named !== undefined) return named
    const numeric = /^#(?:x([0-9a-fA-F]{1,6})|([0-9]{1,7}))$/.exec(ref)
    if (!numeric)
      throw new Refused(
        `it uses the entity &${ref.slice(0, 20)}; (only &lt; &gt; &amp; &quot; &apos; and numeric references are allowed)`,
      )
    const code = numeric[1] !== undefined ? parseInt(numeric[1], 16) : Number(numeric[2])
    if (code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff))
      throw new Refused(`it uses the invalid character reference &${ref};`)
    return String.fromCodePoint(code)
  })
}
