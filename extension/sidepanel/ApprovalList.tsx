import { useEffect, useState } from 'preact/hooks'
import { BROWSER_PLUGIN } from '../../src/protocol/constants'
import type { Decision } from '../shared/wireTypes'
import type { ApprovalView } from '../shared/panelTypes'
import { command } from './background'
import { collapse, formatParams, timeLeft, toolLabel } from './format'
import { FlowQuestion, flowPairs } from './FlowQuestion'
import { ApprovalHint } from './ToolHints'
import { Visible } from './Visible'

/** Below this many seconds left, the countdown is shown as a warning. */
const HURRY_SECONDS = 30

/** The whole arguments: about a screen at first, all of them on request. */
function Arguments({ params }: { params: unknown }) {
  const [open, setOpen] = useState(false)
  const text = formatParams(params)
  const cut = collapse(text)
  const whole = open || cut.hiddenChars === 0
  return (
    <div class="arguments">
      <pre data-testid="approval-params" class={whole && cut.hiddenChars > 0 ? 'expanded' : ''}>
        <Visible text={whole ? text : cut.shown} />
      </pre>
      {cut.hiddenChars > 0 && (
        <button
          type="button"
          class="link"
          data-testid="approval-params-toggle"
          aria-expanded={open}
          onClick={() => setOpen(!open)}
        >
          {open
            ? 'Show less'
            : `Show all arguments (${cut.hiddenChars.toLocaleString()} more characters, ${cut.hiddenLines.toLocaleString()} more lines)`}
        </button>
      )}
    </div>
  )
}

/** The time now, re-rendering every second while mounted, for the countdowns. */
function useNow(): number {
  const [, setTick] = useState(0)
  useEffect(() => {
    const timer = setInterval(() => setTick((t) => t + 1), 1000)
    return () => clearInterval(timer)
  }, [])
  // Read at every render: a request that arrives between ticks is not shown with more time than it has.
  return Date.now()
}

/**
 * Waiting approval requests, oldest first. Each says who asks (the MCP client), what runs (plugin and
 * tool), where (the tab, by title and URL), with which arguments (all of them), and how long it
 * waits; it can be allowed once, always, or denied.
 */
export function ApprovalList({
  approvals,
  onError,
}: {
  approvals: ApprovalView[]
  onError: (m: string) => void
}) {
  const [busy, setBusy] = useState<string | null>(null)
  const now = useNow()
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
      {approvals.map((a, i) => {
        const secondsLeft = Math.ceil((a.expiresAt - now) / 1000)
        return (
          <article class="approval" key={a.id} data-testid="approval" data-approval-id={a.id}>
            <p>
              <strong data-testid="approval-client">
                <Visible text={a.client} />
              </strong>{' '}
              asks{' '}
              {a.declaredBy === undefined && (
                <>
                  <span data-testid="approval-plugin">
                    <Visible text={a.pluginDisplayName} />
                  </span>{' '}
                </>
              )}
              to run{' '}
              <code data-testid="approval-tool">
                <Visible text={toolLabel(a.plugin, a.tool)} />
              </code>
              {a.title !== undefined && a.title !== a.tool && (
                <span data-testid="approval-title">
                  {' '}
                  (<Visible text={a.title} />)
                </span>
              )}
              {a.declaredBy !== undefined && (
                <span data-testid="approval-declared-by">
                  , a tool declared by the site <strong>{a.declaredBy}</strong> (its own tool: what it does is
                  the site&apos;s word)
                </span>
              )}
              {approvals.length > 1 && (
                <span class="muted">
                  {' '}
                  ({i + 1} of {approvals.length})
                </span>
              )}
            </p>
            <ApprovalHint
              annotations={a.annotations}
              source={
                a.declaredBy !== undefined
                  ? `the site ${a.declaredBy}`
                  : a.plugin === BROWSER_PLUGIN
                    ? 'bridge'
                    : a.pluginDisplayName
              }
            />
            {a.tab ? (
              <p class="approval-tab" data-testid="approval-tab" data-tab-id={a.tab.tabId}>
                in the tab{' '}
                <strong data-testid="approval-tab-title">
                  <Visible text={a.tab.title || '(untitled)'} />
                </strong>
                <br />
                <code class="small" data-testid="approval-tab-url">
                  <Visible text={a.tab.url} />
                </code>
              </p>
            ) : (
              <p class="muted small" data-testid="approval-tab">
                in the browser itself (a built-in tool that acts on no tab)
              </p>
            )}
            {a.scope && (
              <p class="muted small" data-testid="approval-scope">
                <Visible text={a.client} /> may use:{' '}
                {a.scope.map((line) => (
                  <span key={line}>
                    <br />
                    <Visible text={line} />
                  </span>
                ))}
              </p>
            )}
            {a.flow && <FlowQuestion flow={a.flow} client={a.client} />}
            <Arguments params={a.params} />
            {a.allowAlways === false && (
              <p class="muted small" data-testid="approval-no-always">
                This tool runs code in the page, so it is allowed one call at a time; only setting it to auto
                in Built-in tools makes it run without asking.
              </p>
            )}
            <p class={secondsLeft <= HURRY_SECONDS ? 'warning-text' : 'muted'}>
              Time left to decide: <span data-testid="approval-time-left">{timeLeft(a.expiresAt, now)}</span>
            </p>
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
              {a.allowAlways !== false && (
                <button
                  type="button"
                  data-testid="approve-always"
                  title={
                    a.flow
                      ? `Allow this call, and from now on let ${a.client} carry what it reads on one of these sites to the other; the tool still asks as it did`
                      : 'Allow this call and set the tool to auto from now on'
                  }
                  disabled={busy === a.id}
                  onClick={() => void decide(a.id, 'allow_always')}
                >
                  {a.flow ? (
                    <>
                      Always allow <Visible text={flowPairs(a.flow)} /> for <Visible text={a.client} />
                    </>
                  ) : (
                    'Always allow'
                  )}
                </button>
              )}
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
        )
      })}
    </section>
  )
}
