import { useState } from 'preact/hooks'
import type { Decision } from '../shared/wireTypes'
import type { ApprovalView } from '../shared/panelTypes'
import { command } from './background'
import { formatParams, toolLabel } from './format'

/** Waiting approval requests, oldest first; each can be allowed once, always, or denied. */
export function ApprovalList({
  approvals,
  onError,
}: {
  approvals: ApprovalView[]
  onError: (m: string) => void
}) {
  const [busy, setBusy] = useState<string | null>(null)
  if (approvals.length === 0) return null
  const decide = async (id: string, decision: Decision): Promise<void> => {
    setBusy(id)
    const r = await command({ type: 'decide', id, decision })
    setBusy(null)
    if (!r.ok) onError(r.message)
  }
  return (
    <section class="approvals" data-testid="approvals">
      <h2>
        Approval needed{' '}
        <span class="count" data-testid="approval-count">
          {approvals.length}
        </span>
      </h2>
      {approvals.map((a, i) => (
        <article class="approval" key={a.id} data-testid="approval" data-approval-id={a.id}>
          <p>
            <strong data-testid="approval-plugin">{a.pluginDisplayName}</strong> wants to run{' '}
            <code data-testid="approval-tool">{toolLabel(a.plugin, a.tool)}</code>
            {approvals.length > 1 && (
              <span class="muted">
                {' '}
                ({i + 1} of {approvals.length})
              </span>
            )}
          </p>
          <pre data-testid="approval-params">{formatParams(a.params)}</pre>
          <p class="muted">Expires at {new Date(a.expiresAt).toLocaleTimeString()}</p>
          <div class="buttons">
            <button
              type="button"
              class="primary"
              data-testid="approve-once"
              disabled={busy === a.id}
              onClick={() => void decide(a.id, 'allow_once')}
            >
              Allow once
            </button>
            <button
              type="button"
              data-testid="approve-always"
              title="Allow this call and set the tool to auto from now on"
              disabled={busy === a.id}
              onClick={() => void decide(a.id, 'allow_always')}
            >
              Always allow
            </button>
            <button
              type="button"
              class="danger"
              data-testid="deny"
              disabled={busy === a.id}
              onClick={() => void decide(a.id, 'deny')}
            >
              Deny
            </button>
          </div>
        </article>
      ))}
    </section>
  )
}
