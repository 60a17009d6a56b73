/**
 * What is wrong with a JSON text that does not parse, with where: JSON.parse's message plus the line
 * and column of its position (Node 20 gives only the offset; newer Node gives both, kept as it is).
 */
export function jsonProblem(text: string, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error)
  const position = /at position (\d+)/.exec(message)
  if (!position || /line \d+/.test(message)) return message
  const before = text.slice(0, Number(position[1]))
  const line = before.split('\n').length
  const column = before.length - before.lastIndexOf('\n')
  return `${message} (line ${line}, column ${column})`
}
