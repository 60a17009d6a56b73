/** Cuts long page content, ending it with a marker that says how much was left out. */
export function truncate(text: string, maxLength: number, marker: (shown: number, total: number) => string) {
  if (text.length <= maxLength) return { text, length: text.length, truncated: false }
  return {
    text: text.slice(0, maxLength) + marker(maxLength, text.length),
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
  const marker = (end: number) =>
    end >= body.length && opts.complete
      ? `[lines ${start + 1}-${end} of ${of}: the end]`
      : `[cut at maxLength (${opts.maxBytes} bytes): lines ${start + 1}-${end} of ${of}; the rest: ${opts.tool} with cursor: ${end}; or ${opts.narrow}]`
  // Room for the header, the widest marker and the line breaks.
  let room = opts.maxBytes - bytesOf(header.join('\n')) - bytesOf(marker(body.length)) - 16
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
    // One line longer than the whole budget: its start, so the call still moves on.
    const line = body[start]!
    kept.push(line.slice(0, Math.max(0, room - 2)))
    end = start + 1
  }
  const from = start > 0 ? [`[from line ${start + 1}]`] : []
  return { text: [...header, ...from, ...kept, marker(end)].join('\n'), truncated: true }
}
