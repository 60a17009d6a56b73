/**
 * A matching tab that was open before the plugin's current code was on: calls cannot run there until
 * the page loads again. One click reloads it; the person need not know why.
 */
export function StaleTabNotice({ onReload }: { onReload: () => void }) {
  return (
    <span class="warning-text" data-testid="stale-tab">
      {' '}
      opened before this plugin was on: reload it to use its tools{' '}
      <button type="button" class="link" data-testid="reload-tab" onClick={onReload}>
        Reload tab
      </button>
    </span>
  )
}
