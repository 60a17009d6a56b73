/**
 * A tool's output as JSON text, made once per output object: the call runner writes it into the
 * client's answer and the data-flow guard hands the same text to its worker thread (one flat string
 * to copy, where the object would be copied node by node). An output is never changed once a call
 * ended, so the text made first stays its text.
 */
const texts = new WeakMap<object, string>()

export function jsonTextOf(value: unknown): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? 'null'
  let text = texts.get(value)
  if (text === undefined) texts.set(value, (text = JSON.stringify(value) ?? 'null'))
  return text
}
