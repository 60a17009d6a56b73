import type { ToolAnnotations } from '../shared/wireTypes'
import { hintWords, toolKind } from './toolKind'
import { Visible } from './Visible'

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
        <strong>Destructive:</strong> <Visible text={source} /> declares that this tool may delete or
        overwrite data. Check the arguments before you allow it.
      </p>
    )
  if (kind === 'read-only')
    return (
      <p class="muted small" data-testid="approval-kind" data-kind={kind}>
        Read-only, as <Visible text={source} /> declares it: it should change nothing. It asks because its
        permission is set to ask.
      </p>
    )
  return null
}
