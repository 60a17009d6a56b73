/**
 * Cuts long page content from `offset`, ending it with a marker that says how much was left out and
 * where the rest starts (`next`).
 */
export function truncate(
  text: string,
  maxLength: number,
  marker: (shown: number, total: number, next: number) => string,
  offset = 0,
) {
  const part = offset ? text.slice(offset) : text
  if (part.length <= maxLength) return { text: part, length: text.length, truncated: false }
  return {
    text: part.slice(0, maxLength) + marker(maxLength, text.length, offset + maxLength),
    length: text.length,
    truncated: true,
  }
}

const utf8 = new TextEncoder()
const bytesOf = (text: string): number => utf8.encode(text).length

/**
 * One budget for a snapshot, counted in UTF-8 bytes on the final text, marker included: whole lines
 * from `cursor` (a line number of the outline, after its URL and Title lines) while they fit, then a
 * marker naming the limit that cut and the cursor for the rest. `complete` false: the page walk
 * stopped early, so the outline has more lines than this text holds.
 */
export function cutOutline(
  text: string,
  opts: { maxBytes: number; cursor?: number; complete: boolean; tool: string; narrow: string },
): { text: string; truncated: boolean } {
  const lines = text.split('\n')
  const header = lines.slice(0, 2)
  const body = lines.slice(2)
  const start = opts.cursor ?? 0
  if (start === 0 && opts.complete && bytesOf(text) <= opts.maxBytes) return { text, truncated: false }
  if (start >= body.length)
    return {
      text: `${header.join('\n')}\n[cursor ${start} is past the end: the outline has ${body.length} lines${opts.complete ? '' : ' so far'}]`,
      truncated: false,
    }
  const of = opts.complete ? `${body.length}` : `more than ${body.length}`
  const from = start > 0 ? [`[from line ${start + 1}]`] : []
  const long = (end: number) =>
    end >= body.length && opts.complete
      ? `[lines ${start + 1}-${end} of ${of}: the end]`
      : `[cut at maxLength (${opts.maxBytes} bytes): lines ${start + 1}-${end} of ${of}; the rest: ${opts.tool} with cursor: ${end}; or ${opts.narrow}]`
  const short = (end: number) => `[cut at ${opts.maxBytes} bytes; cursor: ${end} for the rest]`
  // The widest marker must leave room for lines; a small budget gets the short one.
  const overhead = (m: (end: number) => string) =>
    bytesOf([...header, ...from].join('\n')) +
    Math.max(bytesOf(m(body.length)), bytesOf(m(Math.max(start, body.length - 1)))) +
    16
  const marker = overhead(long) * 1.5 <= opts.maxBytes ? long : short
  let room = opts.maxBytes - overhead(marker)
  const kept: string[] = []
  let end = start
  while (end < body.length) {
    const size = bytesOf(body[end]!) + 1
    if (size > room) break
    kept.push(body[end]!)
    room -= size
    end++
  }
  if (!kept.length) {
    // One line longer than the whole budget: as much of it as fits, so the call still moves on.
    let line = body[start]!
    while (line && bytesOf(line) > Math.max(0, room)) line = line.slice(0, Math.floor(line.length * 0.9) - 1)
    kept.push(line)
    end = start + 1
  }
  return { text: [...header, ...from, ...kept, marker(end)].join('\n'), truncated: true }
}
