import { useState } from 'preact/hooks'
import type { PanelCommand, PluginUpdateView, PluginView, RegistryPluginView } from '../shared/panelTypes'
import { pluginNameFromPackage } from '../../src/protocol/constants'
import { command } from './background'

interface Props {
  plugins: PluginView[]
  connected: boolean
  onError: (m: string) => void
}

/**
 * The plugin store: search the npm registry, install a plugin, check the installed ones for updates.
 * Work runs in the daemon (the user's npm); the plugin list refreshes from its `plugins.changed`.
 */
export function PluginStore({ plugins, connected, onError }: Props) {
  const [query, setQuery] = useState('')
  const [results, setResults] = useState<RegistryPluginView[] | null>(null)
  const [updates, setUpdates] = useState<PluginUpdateView[] | null>(null)
  /** What is running now, for the progress line ("Installing notes…"); one thing at a time. */
  const [busy, setBusy] = useState<string | null>(null)
  const [done, setDone] = useState<string | null>(null)

  const run = async <T,>(label: string, cmd: PanelCommand): Promise<T | undefined> => {
    setBusy(label)
    setDone(null)
    try {
      const reply = await command<T>(cmd)
      if (!reply.ok) {
        onError(reply.message)
        return undefined
      }
      return reply.value
    } finally {
      setBusy(null)
    }
  }
  const search = async (event: Event): Promise<void> => {
    event.preventDefault()
    const q = query.trim()
    const found = await run<{ results: RegistryPluginView[] }>(
      q ? `Searching for “${q}”…` : 'Listing plugins…',
      { type: 'searchPlugins', query: q },
    )
    if (found) setResults(found.results)
  }
  const checkUpdates = async (): Promise<void> => {
    const found = await run<{ updates: PluginUpdateView[] }>('Checking for updates…', {
      type: 'checkUpdates',
    })
    if (found) setUpdates(found.updates)
  }
  const install = async (packageName: string): Promise<void> => {
    const outcome = await run<{ ok: boolean; plugin?: PluginView }>(`Installing ${packageName}…`, {
      type: 'installPlugin',
      name: packageName,
    })
    if (outcome)
      setDone(
        outcome.plugin
          ? `Installed ${outcome.plugin.displayName} ${outcome.plugin.version}.`
          : `Installed ${packageName}, but the daemon did not load it: see its log.`,
      )
  }
  const update = async (name: string): Promise<void> => {
    const outcome = await run<{ ok: boolean; plugin?: PluginView }>(`Updating ${name}…`, {
      type: 'updatePlugin',
      name,
    })
    if (!outcome) return
    setUpdates((list) => list?.filter((u) => u.name !== name) ?? null)
    setDone(
      outcome.plugin ? `Updated ${outcome.plugin.displayName} to ${outcome.plugin.version}.` : 'Updated.',
    )
  }

  const installed = new Map(plugins.map((p) => [p.name, p]))
  const disabled = !connected || busy !== null
  return (
    <section data-testid="plugin-store">
      <h2>Get plugins</h2>
      <form class="row" onSubmit={(e) => void search(e)}>
        <input
          type="search"
          class="grow"
          placeholder="Search the npm registry (empty: all plugins)"
          aria-label="Search plugins"
          data-testid="store-query"
          value={query}
          onInput={(e) => setQuery((e.target as HTMLInputElement).value)}
          maxLength={100}
        />
        <button type="submit" data-testid="store-search" disabled={disabled}>
          Search
        </button>
      </form>
      <div class="row small">
        <button
          type="button"
          class="link"
          data-testid="check-updates"
          disabled={disabled || plugins.length === 0}
          onClick={() => void checkUpdates()}
        >
          Check for updates
        </button>
      </div>
      {busy && (
        <p class="muted" role="status" data-testid="store-busy">
          {busy}
        </p>
      )}
      {done && (
        <p class="ok-text" role="status" data-testid="store-done">
          {done}
        </p>
      )}
      {updates && (
        <div data-testid="updates">
          {updates.length === 0 ? (
            <p class="muted">All plugins are up to date.</p>
          ) : (
            <ul class="plain">
              {updates.map((u) => (
                <li key={u.name} class="row" data-testid={`update-${u.name}`}>
                  <span class="grow">
                    <strong>{installed.get(u.name)?.displayName ?? u.name}</strong> {u.current} → {u.latest}
                  </span>
                  <button
                    type="button"
                    data-testid="update"
                    disabled={disabled}
                    onClick={() => void update(u.name)}
                  >
                    Update
                  </button>
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      {results && (
        <div data-testid="store-results">
          {results.length === 0 && <p class="muted">No plugins found.</p>}
          <ul class="plain">
            {results.map((r) => {
              const have = installed.get(pluginNameFromPackage(r.name))
              return (
                <li key={r.name} class="store-item" data-testid={`result-${r.name}`}>
                  <div class="row">
                    <span class="grow">
                      <strong>{r.name}</strong> <span class="muted">{r.version}</span>
                    </span>
                    {have ? (
                      <span class="muted small" data-testid="installed">
                        Installed {have.version}
                      </span>
                    ) : (
                      <button
                        type="button"
                        data-testid="install"
                        disabled={disabled}
                        onClick={() => void install(r.name)}
                      >
                        Install
                      </button>
                    )}
                  </div>
                  <div class="muted small">
                    {r.description || 'No description.'}
                    {r.author ? ` · ${r.author}` : ''}
                  </div>
                </li>
              )
            })}
          </ul>
        </div>
      )}
    </section>
  )
}
