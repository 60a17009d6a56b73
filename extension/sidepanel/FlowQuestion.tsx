import type { ApprovalFlow } from '../shared/wireTypes'
import { Visible } from './Visible'

const KIND_WORDS: Record<ApprovalFlow['flows'][number]['kind'], string> = {
  token: 'a secret-looking token',
  email: 'an e-mail address',
  number: 'a long number',
  text: 'text',
}

/** `A -> B` for each distinct pair of sites, as the "always allow" button names them. */
export function flowPairs(flow: ApprovalFlow): string {
  return [...new Set(flow.flows.map((f) => `${f.from} → ${f.to}`))].join(', ')
}

/**
 * The data-flow guard's question on an approval card: the call would carry something the client read
 * on one site to another. Each value is shown masked (never the value itself), with where it was read
 * and where it would go; the sites are the daemon's words, the values the call's own, all shown as text.
 */
export function FlowQuestion({ flow, client }: { flow: ApprovalFlow; client: string }) {
  return (
    <div class="flow-question warning-text" data-testid="approval-flow">
      <p>
        <strong>Data leaving a site.</strong> This call would carry what <Visible text={client} /> read on one
        site to another:
      </p>
      <ul>
        {flow.flows.map((f, i) => (
          <li key={i} data-testid="approval-flow-item" data-kind={f.kind}>
            {KIND_WORDS[f.kind]}{' '}
            <code data-testid="approval-flow-value">
              <Visible text={f.masked} />
            </code>{' '}
            from{' '}
            <strong data-testid="approval-flow-from">
              <Visible text={f.from} />
            </strong>{' '}
            to{' '}
            <strong data-testid="approval-flow-to">
              <Visible text={f.to} />
            </strong>
          </li>
        ))}
      </ul>
      <p class="muted small">
        A page can tell an agent to copy your data elsewhere. Allow only if you asked for this.
      </p>
    </div>
  )
}
