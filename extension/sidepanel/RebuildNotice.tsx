import type { RebuildNotice as Notice } from '../shared/panelTypes'

/**
 * A local plugin was rebuilt while the extension ran: its open tabs reload so that they start with the
 * new build (a running page never gets new adapter code), and this says so, then that they are updated.
 */
export function RebuildNotice({ notice }: { notice: Notice }) {
  const when = new Date(notice.at).toLocaleTimeString()
  const tabs = `${notice.tabs} tab${notice.tabs === 1 ? '' : 's'}`
  const text =
    notice.state === 'reloading'
      ? `rebuilt: reloading ${tabs} so ${notice.tabs === 1 ? 'it starts' : 'they start'} with the new build`
      : notice.tabs === 0
        ? 'rebuilt: updated (no tab of it was open; tabs opened now start with the new build)'
        : `rebuilt: updated, ${tabs} reloaded with the new build`
  return (
    <p
      class={`small ${notice.state === 'reloading' ? 'warning-text' : 'muted'}`}
      data-testid="rebuild-notice"
      data-state={notice.state}
    >
      {text} <span class="muted">({when})</span>
    </p>
  )
}
