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

/**
 * A small badge, "read-only" or "destructive", with every hint in its tooltip. `source` names who
 * declared them (the plugin's name, or bridge for its built-in tools).
 */
export function ToolBadge({
  annotations,
  source,
}: {
  annotations: ToolAnnotations | undefined
  source: string
}) {
  const kind = toolKind(annotations)
  if (!kind) return null
  const tip = `${source} declares that this tool ${hintWords(annotations).join('; ')}. A hint for you and for agents: only the permission decides what runs.`
  return (
    <span class={`badge badge-${kind}`} data-testid="tool-kind" data-kind={kind} title={tip}>
      {kind}
    </span>
  )
}

/**
 * The approval card's line on what the tool declares: a destructive tool says so plainly, as a
 * warning; a read-only one says it should change nothing, and that it asks because of its setting.
 */
export function ApprovalHint({
  annotations,
  source,
}: {
  annotations: ToolAnnotations | undefined
  source: string
}) {
  const kind = toolKind(annotations)
  if (kind === 'destructive')
    return (
      <p class="warning hint-destructive" data-testid="approval-kind" data-kind={kind}>
        <strong>Destructive:</strong> {source} declares that this tool may delete or overwrite data. Check
        the arguments before you allow it.
      </p>
    )
  if (kind === 'read-only')
    return (
      <p class="muted small" data-testid="approval-kind" data-kind={kind}>
        Read-only, as {source} declares it: it should change nothing. It asks because its permission is
        set to ask.
      </p>
    )
  return null
}
