import { useEffect, useState } from 'preact/hooks'
import type { ConnectionView } from '../shared/panelTypes'
import { command } from './background'
import { CommandText } from './CommandText'

export function ConnectionBanner({
  connection,
  onError,
}: {
  connection: ConnectionView
  onError: (m: string) => void
}) {
  const [now, setNow] = useState(Date.now())
  useEffect(() => {
    if (connection.retryAt === undefined) return
    const t = setInterval(() => setNow(Date.now()), 1000)
    return () => clearInterval(t)
  }, [connection.retryAt])
  if (connection.status === 'connected')
    return connection.versionNotice ? (
      <VersionNotice notice={connection.versionNotice} onError={onError} />
    ) : null
  const seconds =
    connection.retryAt !== undefined ? Math.max(0, Math.ceil((connection.retryAt - now) / 1000)) : null
  const reconnect = async (): Promise<void> => {
    const r = await command({ type: 'reconnect' })
    if (!r.ok) onError(r.message)
  }
  return (
    <section class={`banner banner-${connection.status}`} role="status" data-testid="connection-banner">
      <p data-testid="connection-message">
        <CommandText text={connection.message} />
      </p>
      <p class="muted">
        {seconds !== null && `Retrying in ${seconds}s. `}
        {connection.fix === 'reloadExtension' && <ReloadButton onError={onError} />}{' '}
        <button type="button" data-testid="reconnect" onClick={() => void reconnect()}>
          Reconnect now
        </button>
      </p>
    </section>
  )
}

/** Connected, but to a daemon of another version: what differs and the one fix. */
function VersionNotice({
  notice,
  onError,
}: {
  notice: NonNullable<ConnectionView['versionNotice']>
  onError: (m: string) => void
}) {
  return (
    <section class="banner banner-version" role="status" data-testid="version-notice" data-fix={notice.fix}>
      <p data-testid="version-message">
        <CommandText text={notice.message} />
      </p>
      {notice.fix === 'reloadExtension' && (
        <p>
          <ReloadButton onError={onError} />
        </p>
      )}
    </section>
  )
}

/** Reloads the extension so Chrome runs the files `bridge start` installed. */
function ReloadButton({ onError }: { onError: (m: string) => void }) {
  const reload = async (): Promise<void> => {
    const r = await command({ type: 'reloadExtension' })
    if (!r.ok) onError(r.message)
  }
  return (
    <button type="button" data-testid="reload-extension" onClick={() => void reload()}>
      Reload extension
    </button>
  )
}
