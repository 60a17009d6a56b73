import { useState } from 'preact/hooks'
import { CommandText } from './CommandText'
import type { FailedPlugin, Permission } from '../shared/wireTypes'
import type { PanelCommand, PluginView } from '../shared/panelTypes'
import { command } from './background'
import { PermissionControl } from './PermissionControl'
import { RebuildNotice } from './RebuildNotice'
import { ReviewNotice } from './ReviewNotice'
import { StaleTabNotice } from './StaleTabNotice'
import { ToolBadge } from './ToolHints'

const TAB_STATE_TEXT = { ready: 'Ready', unavailable: 'Not ready', closed: 'No tab open' } as const
const TAB_STATE_HINT = {
  ready: 'A matching tab is open and the plugin is ready.',
  unavailable:
    'A matching tab is open but the plugin is not ready there: turn on at least one of its tools, sign in to the site in that tab, or reload the tab.',
  closed: 'Open the site in a tab to use these tools.',
} as const

interface Props {
  plugins: PluginView[]
  failed: FailedPlugin[]
  connected: boolean
  onError: (m: string) => void
}

export function PluginList({ plugins, failed, connected, onError }: Props) {
  return (
    <section data-testid="plugins">
      <h2>Plugins</h2>
      {plugins.length === 0 && (
        <p class="muted">
          No plugins loaded. Install one below, or start your own with <code>bridge plugin create</code> and
          run <code>bridge-plugin build</code> in its folder.
        </p>
      )}
      {plugins.map((p) => (
        <PluginCard key={p.name} plugin={p} connected={connected} onError={onError} />
      ))}
      {failed.length > 0 && (
        <div class="failed" data-testid="failed-plugins">
          <h3>Failed to load</h3>
          <ul class="plain">
            {failed.map((f) => (
              <li key={f.path}>
                <code>{f.path}</code>: <CommandText text={f.error} />
              </li>
            ))}
          </ul>
        </div>
      )}
    </section>
  )
}

function PluginCard({
  plugin: p,
  connected,
  onError,
}: {
  plugin: PluginView
  connected: boolean
  onError: (m: string) => void
}) {
  const [open, setOpen] = useState(false)
  const [confirmRemove, setConfirmRemove] = useState(false)
  const [removing, setRemoving] = useState(false)
  const remove = async (): Promise<void> => {
    setRemoving(true)
    try {
      await send({ type: 'removePlugin', name: p.name })
    } finally {
      setRemoving(false)
      setConfirmRemove(false)
    }
  }
  const send = async (cmd: PanelCommand): Promise<void> => {
    const r = await command(cmd)
    if (!r.ok) onError(r.message)
  }
  // "All tools" shows what agents get: off while a review is needed, whatever the configured default.
  const effective: Permission = p.reviewed ? p.permission : 'off'
  const mixed = p.tools.some((t) => t.permission !== p.tools[0]?.permission)
  const setPlugin = (permission: Permission) =>
    void send({ type: 'setPluginPermission', plugin: p.name, permission })
  return (
    <article class="plugin" data-testid={`plugin-${p.name}`}>
      <div class="plugin-head">
        {p.iconSvg && (
          <img
            class="icon"
            alt=""
            src={`data:image/svg+xml;charset=utf-8,${encodeURIComponent(p.iconSvg)}`}
          />
        )}
        <div class="grow">
          <strong>{p.displayName}</strong> <span class="muted">{p.version}</span>
          <div class="muted small">
            <span data-testid="plugin-source">{p.source}</span> ·{' '}
            <span data-testid="tool-count">{p.tools.length} tools</span>
            {p.sdkVersion ? ` · SDK ${p.sdkVersion}` : ''}
          </div>
        </div>
        <span
          class={`tab-state tab-${p.tabState}`}
          data-testid="tab-state"
          data-state={p.tabState}
          title={TAB_STATE_HINT[p.tabState]}
        >
          {TAB_STATE_TEXT[p.tabState]}
        </span>
      </div>
      {!p.reviewed && (
        <ReviewNotice
          plugin={p}
          connected={connected}
          onReview={() => void send({ type: 'markReviewed', plugin: p.name, version: p.version })}
        />
      )}
      <div class="row">
        <span>All tools</span>
        {mixed && (
          <span class="muted small" data-testid="plugin-permission-mixed">
            {' '}
            (some tools differ)
          </span>
        )}
        <PermissionControl
          value={effective}
          testId="plugin-permission"
          label={`${p.displayName} default permission`}
          disabled={!connected}
          onChange={setPlugin}
        />
      </div>
      <div class="row small">
        <button
          type="button"
          class="link"
          data-testid="toggle-tools"
          aria-expanded={open}
          onClick={() => setOpen(!open)}
        >
          {open ? 'Hide tools' : 'Per-tool settings'}
        </button>
        {p.source === 'local' && p.path && (
          <button
            type="button"
            class="link"
            data-testid="open-folder"
            disabled={!connected}
            onClick={() => void send({ type: 'openFolder', path: p.path ?? '' })}
          >
            Open folder
          </button>
        )}
        {!confirmRemove && (
          <button
            type="button"
            class="link danger"
            data-testid="remove-plugin"
            disabled={!connected}
            onClick={() => setConfirmRemove(true)}
          >
            Remove
          </button>
        )}
      </div>
      {confirmRemove && (
        <p class="warning row small" data-testid="confirm-remove">
          <span class="grow">
            {p.source === 'local'
              ? `Remove ${p.displayName} from localPlugins? Its folder stays on disk.`
              : `Uninstall ${p.displayName} from this machine?`}
          </span>
          <button
            type="button"
            data-testid="remove-confirm"
            disabled={!connected || removing}
            onClick={() => void remove()}
          >
            {removing ? 'Removing…' : 'Remove'}
          </button>
          <button
            type="button"
            class="link"
            data-testid="remove-cancel"
            disabled={removing}
            onClick={() => setConfirmRemove(false)}
          >
            Cancel
          </button>
        </p>
      )}
      {open && (
        <ul class="plain tools" data-testid="plugin-tools">
          {p.tools.map((t) => (
            <li key={t.name} class="row" data-testid={`tool-${t.name}`}>
              <span class="grow" title={t.description}>
                <span data-testid="tool-title">{t.displayName || t.name}</span>{' '}
                <ToolBadge annotations={t.annotations} source={p.displayName} />
              </span>
              <PermissionControl
                value={t.permission}
                testId="tool-permission"
                label={`${t.name} permission`}
                disabled={!connected}
                onChange={(permission) =>
                  void send({ type: 'setToolPermission', plugin: p.name, tool: t.name, permission })
                }
              />
            </li>
          ))}
        </ul>
      )}
      {p.rebuild && <RebuildNotice notice={p.rebuild} />}
      {p.tabs.length > 0 && (
        <ul class="plain small tabs" data-testid="plugin-tabs">
          {p.tabs.map((t) => (
            <li key={t.tabId} data-ready={String(t.ready)} data-isolated={String(t.isolated !== false)}>
              {t.ready ? '●' : '○'} {t.title || t.url}
              {p.staleTabIds.includes(t.tabId) && (
                <StaleTabNotice
                  onReload={() => void send({ type: 'reloadTab', plugin: p.name, tabId: t.tabId })}
                />
              )}
            </li>
          ))}
        </ul>
      )}
    </article>
  )
}
