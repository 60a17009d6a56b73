import type { ToolAnnotations } from '../shared/wireTypes'

/**
 * What a tool says about itself (MCP annotations), for the person setting its permission or deciding
 * a call. Only what is declared is shown: a tool that declares nothing gets no badge (MCP's defaults,
 * "may destroy, reaches the open world", would put a badge on every such tool). When the hints
 * contradict each other, the cautious one wins: a tool that says destructive is shown destructive.
 * They are hints, never permissions: the panel shows them beside the switch, which alone decides.
 */
export type ToolKind = 'read-only' | 'destructive'

export function toolKind(annotations: ToolAnnotations | undefined): ToolKind | undefined {
  if (annotations?.destructiveHint === true) return 'destructive'
  if (annotations?.readOnlyHint === true) return 'read-only'
  return undefined
}

/** Every declared hint in words, for a tooltip. */
export function hintWords(annotations: ToolAnnotations | undefined): string[] {
  if (!annotations) return []
  const words: string[] = []
  if (annotations.readOnlyHint === true) words.push('only reads')
  if (annotations.readOnlyHint === false) words.push('changes things')
  if (annotations.destructiveHint === true) words.push('may delete or overwrite data')
  if (annotations.destructiveHint === false) words.push('only adds, never deletes or overwrites')
  if (annotations.idempotentHint === true) words.push('repeating it has no further effect')
  if (annotations.openWorldHint === true) words.push('reaches beyond the page (other sites or people)')
  if (annotations.openWorldHint === false) words.push('stays within the page')
  return words
}
