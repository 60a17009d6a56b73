/** Cuts long page content, ending it with a marker that says how much was left out. */
export function truncate(text: string, maxLength: number, marker: (shown: number, total: number) => string) {
  if (text.length <= maxLength) return { text, length: text.length, truncated: false }
  return {
    text: text.slice(0, maxLength) + marker(maxLength, text.length),
    length: text.length,
    truncated: true,
  }
}
