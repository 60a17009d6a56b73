import type { ToolAnnotations } from '../protocol/manifest'

/** MCP's meaning of a hint a tool does not give (the spec's defaults): assume the worst of the tool. */
const HINT_DEFAULTS = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: true,
} as const

/**
 * A tool's annotations as listed in `tools/list`: its title (also top-level `title`; older clients read it
 * here) and only the hints that differ from MCP's defaults. A client reads an absent hint as its default,
 * so the meaning is unchanged and every agent pays fewer tokens on every turn.
 *
 * @example
 *   listedAnnotations('Click', { readOnlyHint: false, destructiveHint: true, openWorldHint: true })
 *   // -> { title: 'Click' }
 */
export function listedAnnotations(
  title: string,
  annotations: ToolAnnotations | undefined,
): ToolAnnotations & { title: string } {
  const listed: ToolAnnotations & { title: string } = { title }
  for (const hint of Object.keys(HINT_DEFAULTS) as (keyof typeof HINT_DEFAULTS)[]) {
    const value = annotations?.[hint]
    if (value !== undefined && value !== HINT_DEFAULTS[hint]) listed[hint] = value
  }
  return listed
}
