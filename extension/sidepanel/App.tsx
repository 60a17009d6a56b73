import { useState } from 'preact/hooks'
import { usePanelState } from './background'
import { ConnectionBanner } from './ConnectionBanner'
import { ApprovalList } from './ApprovalList'
import { PluginList } from './PluginList'
import { PluginStore } from './PluginStore'
import { BrowserTools } from './BrowserTools'
import { NoToolsHint } from './NoToolsHint'
import { SiteList } from './SiteList'
import { AuditList } from './AuditList'
import { AuditAlarm } from './AuditAlarm'
import { WorkflowList } from './WorkflowList'
import { toolLabel } from './format'
import { CommandText } from './CommandText'

export function App() {
  const state = usePanelState()
  const [error, setError] = useState<string | null>(null)
  if (!state) return <p class="muted">Loading…</p>
  const connected = state.connection.status === 'connected'
  return (
    <main>
      {state.auditAlarm && <AuditAlarm alarm={state.auditAlarm} onError={setError} />}
      <header>
        <h1>bridge</h1>
        <span
          class={`status status-${state.connection.status}`}
          data-testid="connection-status"
          data-state={state.connection.status}
        >
          {connected ? 'Connected' : state.connection.status === 'connecting' ? 'Connecting' : 'Disconnected'}
        </span>
      </header>
      <ConnectionBanner connection={state.connection} onError={setError} />
      {error && (
        <p class="error" role="alert" data-testid="panel-error">
          <CommandText text={error} />{' '}
          <button type="button" class="link" onClick={() => setError(null)}>
            Dismiss
          </button>
        </p>
      )}
      {state.skipPermissions && (
        <p class="warning" data-testid="skip-permissions">
          Permission checks are skipped (BRIDGE_DANGEROUSLY_SKIP_PERMISSIONS=1): tools set to ask run without
          asking. Tools set to off stay off.
        </p>
      )}
      <NoToolsHint
        plugins={state.plugins}
        browserTools={state.browserTools}
        connected={connected}
        onError={setError}
      />
      <ApprovalList approvals={state.approvals} onError={setError} />
      {state.running.length > 0 && (
        <section data-testid="running">
          <h2>Running</h2>
          <ul class="plain">
            {state.running.map((r) => (
              <li key={r.dispatchId}>
                <code>{toolLabel(r.plugin, r.tool)}</code>
              </li>
            ))}
          </ul>
        </section>
      )}
      <PluginList
        plugins={state.plugins}
        failed={state.failedPlugins}
        connected={connected}
        onError={setError}
      />
      <SiteList
        sites={state.sites}
        activeOrigin={state.activeOrigin}
        connected={connected}
        onError={setError}
      />
      <PluginStore plugins={state.plugins} connected={connected} onError={setError} />
      <BrowserTools tools={state.browserTools} connected={connected} onError={setError} />
      <WorkflowList state={state} onError={setError} />
      <AuditList revision={state.auditRevision} connected={connected} />
      <footer class="muted">
        Extension {state.extensionVersion}
        {state.connection.serverVersion ? ` · daemon ${state.connection.serverVersion}` : ''}
      </footer>
    </main>
  )
}
