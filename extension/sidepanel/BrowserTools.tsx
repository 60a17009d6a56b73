import { useState } from 'preact/hooks'
import { BROWSER_PLUGIN } from '../../src/protocol/constants'
import type { ToolState } from '../shared/wireTypes'
import { command } from './background'
import { PermissionControl } from './PermissionControl'

/** The built-in browser_* / extension_* tools, under the pseudo-plugin `browser`. Collapsed by default. */
export function BrowserTools({
  tools,
  connected,
  onError,
}: {
  tools: ToolState[]
  connected: boolean
  onError: (m: string) => void
}) {
  const [open, setOpen] = useState(false)
  if (tools.length === 0) return null
  const enabled = tools.filter((t) => t.permission !== 'off').length
  return (
    <section data-testid="browser-tools">
      <h2>
        <button
          type="button"
          class="link"
          aria-expanded={open}
          data-testid="toggle-browser-tools"
          onClick={() => setOpen(!open)}
        >
          Built-in browser tools
        </button>{' '}
        <span class="muted small">
          {enabled} of {tools.length} enabled
        </span>
      </h2>
      {open && (
        <ul class="plain tools">
          {tools.map((t) => (
            <li key={t.name} class="row" data-testid={`tool-${t.name}`}>
              <span class="grow" title={t.description}>
                <code>{t.name}</code>
              </span>
              <PermissionControl
                value={t.permission}
                testId="tool-permission"
                label={`${t.name} permission`}
                disabled={!connected}
                onChange={(permission) =>
                  void command({
                    type: 'setToolPermission',
                    plugin: BROWSER_PLUGIN,
                    tool: t.name,
                    permission,
                  }).then((r) => {
                    if (!r.ok) onError(r.message)
                  })
                }
              />
            </li>
          ))}
        </ul>
      )}
    </section>
  )
}
