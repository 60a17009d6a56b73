import { useEffect, useState } from 'preact/hooks'
import type { AuditEntryView } from '../shared/panelTypes'
import { command } from './background'
import { timeAgo } from './format'
import { useNow } from './useNow'
import { Visible } from './Visible'

const LIMIT = 20
/** How often the "21s ago" labels are recomputed. */
const AGE_TICK_MS = 1_000

/** An approval's wait: `800 ms`, `12 s`, `3 min`. */
function formatWait(ms: number): string {
  if (ms < 1_000) return `${Math.round(ms)} ms`
  if (ms < 120_000) return `${Math.round(ms / 1_000)} s`
  return `${Math.round(ms / 60_000)} min`
}

/** The most recent tool calls from GET /audit, refreshed whenever a call ends. */
export function AuditList({ revision, connected }: { revision: number; connected: boolean }) {
  const [entries, setEntries] = useState<AuditEntryView[] | null>(null)
  const [error, setError] = useState<string | null>(null)
  const now = useNow(AGE_TICK_MS)
  useEffect(() => {
    if (!connected) return
    let live = true
    void command<AuditEntryView[]>({ type: 'getAudit', limit: LIMIT }).then((r) => {
      if (!live) return
      if (r.ok) {
        setEntries(r.value)
        setError(null)
      } else setError(r.message)
    })
    return () => {
      live = false
    }
  }, [revision, connected])
  return (
    <section data-testid="audit">
      <h2>Recent activity</h2>
      {error && <p class="error">{error}</p>}
      {entries?.length === 0 && <p class="muted">No tool calls yet.</p>}
      <ul class="plain audit">
        {entries?.map((e, i) => (
          <li
            key={`${e.timestamp}-${i}`}
            data-testid="audit-entry"
            data-success={String(e.success)}
            class={e.success ? '' : 'failed'}
          >
            <span>{e.success ? '✓' : '✗'}</span> <code>{e.tool}</code>{' '}
            <span class="muted small">
              {e.client !== undefined && (
                <>
                  by{' '}
                  <span data-testid="audit-client">
                    <Visible text={e.client} />
                  </span>{' '}
                  ·{' '}
                </>
              )}
              <span data-testid="audit-age">{timeAgo(Date.parse(e.timestamp), now)}</span> · {e.durationMs} ms
              {typeof e.approvalMs === 'number' && (
                <span data-testid="audit-approval"> · {formatWait(e.approvalMs)} waiting for you</span>
              )}
            </span>
            {e.error && (
              <div class="small error-text" data-testid="audit-error">
                [<Visible text={e.error.code} />] <Visible text={e.error.message} />
              </div>
            )}
          </li>
        ))}
      </ul>
    </section>
  )
}
