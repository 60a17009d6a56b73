import { BROWSER_PLUGIN } from '../../src/protocol/constants'
import { pluginToolName, splitToolName } from '../../src/protocol/toolNames'

/** The name an agent calls: `<plugin>_<tool>`, or the full name of a built-in tool (either form accepted). */
export const toolLabel = (plugin: string, tool: string): string =>
  // A site's tool (its plugin is an origin) keeps the name agents call it by.
  plugin === BROWSER_PLUGIN || plugin.includes('://') || splitToolName(tool)?.plugin === plugin
    ? tool
    : pluginToolName(plugin, tool)

/** Arguments as the user reviews them: indented JSON, all of it. */
export function formatParams(params: unknown): string {
  try {
    return JSON.stringify(params, null, 2) ?? 'undefined'
  } catch {
    return String(params)
  }
}

/** About one screen of the side panel: what an approval shows before "Show all". */
export const COLLAPSED_MAX_LINES = 30
export const COLLAPSED_MAX_CHARS = 2_000

export interface Collapsed {
  /** The beginning of the text, whole lines where possible. */
  shown: string
  /** Characters and lines left out of `shown` (0 when the text fits). */
  hiddenChars: number
  hiddenLines: number
}

/** Cuts text to about a screen for the collapsed view; the caller offers the rest. */
export function collapse(
  text: string,
  maxLines = COLLAPSED_MAX_LINES,
  maxChars = COLLAPSED_MAX_CHARS,
): Collapsed {
  let end = Math.min(text.length, maxChars)
  let lines = 0
  for (let i = text.indexOf('\n'); i !== -1 && i < end; i = text.indexOf('\n', i + 1))
    if (++lines === maxLines) end = i
  if (end >= text.length) return { shown: text, hiddenChars: 0, hiddenLines: 0 }
  // Never split a surrogate pair: half a character would show as a replacement glyph.
  const code = text.charCodeAt(end - 1)
  if (code >= 0xd800 && code <= 0xdbff) end--
  const rest = text.slice(end)
  return {
    shown: text.slice(0, end),
    hiddenChars: rest.length,
    hiddenLines: rest.split('\n').length - (rest.startsWith('\n') ? 1 : 0),
  }
}

/** Time left until `expiresAt`, as `m:ss` (or `h:mm:ss`); `0:00` once passed. */
export function timeLeft(expiresAt: number, now = Date.now()): string {
  const total = Math.max(0, Math.ceil((expiresAt - now) / 1000))
  const h = Math.floor(total / 3600)
  const m = Math.floor((total % 3600) / 60)
  const s = String(total % 60).padStart(2, '0')
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`
}

export function timeAgo(ms: number, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - ms) / 1000))
  if (s < 60) return `${s}s ago`
  if (s < 3600) return `${Math.floor(s / 60)}m ago`
  if (s < 86400) return `${Math.floor(s / 3600)}h ago`
  return new Date(ms).toLocaleString()
}
