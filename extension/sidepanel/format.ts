import { BROWSER_PLUGIN } from '../../src/protocol/constants'

/** The name an agent calls: `<plugin>_<tool>`, or the full name of a built-in tool (either form accepted). */
export const toolLabel = (plugin: string, tool: string): string =>
  plugin === BROWSER_PLUGIN || tool.startsWith(`${plugin}_`) ? tool : `${plugin}_${tool}`

/** Arguments as the user reviews them: indented JSON, long values cut with a marker. */
export function formatParams(params: unknown, maxChars = 4000): string {
  let text: string
  try {
    text = JSON.stringify(params, null, 2) ?? 'undefined'
  } catch {
    text = String(params)
  }
  return text.length > maxChars
    ? `${text.slice(0, maxChars)}\n… (${text.length - maxChars} more characters)`
    : text
}

export function timeAgo(ms: number, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - ms) / 1000))
  if (s < 60) return `${s}s ago`
  if (s < 3600) return `${Math.floor(s / 60)}m ago`
  if (s < 86400) return `${Math.floor(s / 3600)}h ago`
  return new Date(ms).toLocaleString()
}
