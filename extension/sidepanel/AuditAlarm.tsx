import type { AuditAlarmView } from '../shared/panelTypes'
import { command } from './background'

const HEADLINES: Record<AuditAlarmView['problem'], string> = {
  rewritten: 'The audit log was rewritten',
  truncated: 'The audit log was truncated',
  new_key: 'The audit log is signed by a new key',
  changed: 'Something other than bridge wrote to the audit log',
}

const MEANINGS: Record<AuditAlarmView['problem'], string> = {
  rewritten: 'Entries this browser saw before were changed or removed since.',
  truncated: 'Entries this browser saw before are gone from the end of the log.',
  new_key:
    'The daemon signs its audit log with another key than before: the log may have been replaced as a whole.',
  changed:
    'The daemon found entries in its audit log that it did not write; its checkpoints now sign the files as they are.',
}

/**
 * The red banner at the top of the side panel when the audit log failed this browser's check: what
 * happened, when the log was last seen as it should be, and a button to acknowledge it (the only way
 * it goes).
 */
export function AuditAlarm({ alarm, onError }: { alarm: AuditAlarmView; onError: (m: string) => void }) {
  const acknowledge = async (): Promise<void> => {
    const r = await command({ type: 'acknowledgeAuditAlarm' })
    if (!r.ok) onError(r.message)
  }
  return (
    <section class="banner audit-alarm" role="alert" data-testid="audit-alarm" data-problem={alarm.problem}>
      <p>
        <strong data-testid="audit-alarm-headline">{HEADLINES[alarm.problem]}</strong>
      </p>
      <p>
        {MEANINGS[alarm.problem]} <span data-testid="audit-alarm-detail">({alarm.detail})</span>
      </p>
      <p data-testid="audit-alarm-last-good">
        Last checked good: {new Date(alarm.lastGoodAt).toLocaleString()}. Found:{' '}
        {new Date(alarm.foundAt).toLocaleString()}.
      </p>
      <p class="muted">
        Run <code>bridge audit verify</code> to see which entry does not fit.{' '}
        <button type="button" data-testid="audit-alarm-acknowledge" onClick={() => void acknowledge()}>
          I have seen this
        </button>
      </p>
    </section>
  )
}
