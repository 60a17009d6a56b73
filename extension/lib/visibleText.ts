/**
 * Text from agents and pages made safe to read: control, format and bidi characters are shown as
 * markers (`⟨U+202E⟩`), never rendered, so nothing in a client name, argument, tab title or URL can
 * reorder, hide or fake what the user reads before approving.
 */

/** A run of text as it is rendered: plain characters, or one invisible character shown as its marker. */
export interface TextSegment {
  text: string
  /** The segment is the marker of a control, format or bidi character (`⟨U+202E⟩`). */
  marker?: true
}

/**
 * Characters that change how the text around them reads without being seen: controls (C0, C1, DEL),
 * format characters (bidi embeddings, overrides and isolates, zero-width joiners, tags), line and
 * paragraph separators, lone surrogates, and the default-ignorable fillers that render as nothing.
 * A newline stays a newline (the layout of the pretty-printed arguments); every other match is shown
 * as a marker, never rendered raw.
 */
const INVISIBLE = /(?!\n)[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Default_Ignorable_Code_Point}]/gu

export const markerOf = (char: string): string =>
  `⟨U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}⟩`

/** Splits text into plain runs and markers, for rendering each marker in its own element. */
export function visibleSegments(text: string): TextSegment[] {
  const out: TextSegment[] = []
  let last = 0
  for (const match of text.matchAll(INVISIBLE)) {
    const at = match.index
    if (at > last) out.push({ text: text.slice(last, at) })
    out.push({ text: markerOf(match[0]), marker: true })
    last = at + match[0].length
  }
  if (last < text.length || out.length === 0) out.push({ text: text.slice(last) })
  return out
}

/** The same text as one string with every invisible character replaced by its marker. */
export const visibleText = (text: string): string => text.replace(INVISIBLE, markerOf)
