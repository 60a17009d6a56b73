import { useState } from 'preact/hooks'
import { BROWSER_PLUGIN } from '../../src/protocol/constants'
import { BROWSER_TOOL_FACTS } from '../../src/tools/facts'
import type { Permission, ToolState } from '../shared/wireTypes'
import { command } from './background'
import { PermissionControl } from './PermissionControl'
import { ToolBadge } from './ToolHints'

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
        <div>
          <p class="muted small">
            The core set is on with the browser default; turn a group on to add its tools (each tool can still
            be set by itself).
          </p>
          {groupsOf(tools).map(([group, members]) => (
            <div key={group} data-testid={`tool-group-${group}`}>
              <div class="row">
                <strong class="grow">{group}</strong>
                <PermissionControl
                  value={common(members)}
                  testId="group-permission"
                  label={`${group} tools permission`}
                  disabled={!connected}
                  onChange={(permission) => {
                    // One setting per tool of the group, the same model as the switches below.
                    for (const t of members.filter((m) => m.permission !== permission))
                      void command({
                        type: 'setToolPermission',
                        plugin: BROWSER_PLUGIN,
                        tool: t.name,
                        permission,
                      }).then((r) => {
                        if (!r.ok) onError(r.message)
                      })
                  }}
                />
              </div>
              <ul class="plain tools">
                {members.map((t) => (
                  <li key={t.name} class="row" data-testid={`tool-${t.name}`}>
                    <span class="grow" title={t.description}>
                      <code>{t.name}</code>{' '}
                      <span class="muted small" data-testid="tool-title">
                        {t.displayName}
                      </span>{' '}
                      <ToolBadge annotations={t.annotations} source="bridge" />
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
            </div>
          ))}
        </div>
      )}
    </section>
  )
}

/** The tools by group: `core` first (the browser default reaches it), then each group in listing order. */
function groupsOf(tools: ToolState[]): [string, ToolState[]][] {
  const groups = new Map<string, ToolState[]>()
  for (const t of tools) {
    const facts = Object.hasOwn(BROWSER_TOOL_FACTS, t.name) ? BROWSER_TOOL_FACTS[t.name] : undefined
    const group = facts?.core ? 'core' : (facts?.group ?? 'other')
    groups.set(group, [...(groups.get(group) ?? []), t])
  }
  return [...groups].sort(([a], [b]) => (a === 'core' ? -1 : b === 'core' ? 1 : 0))
}

/** The group's permission when its tools share one; otherwise the least of them (what the switch raises). */
function common(tools: ToolState[]): Permission {
  const order: Permission[] = ['off', 'ask', 'auto']
  return order[Math.min(...tools.map((t) => order.indexOf(t.permission)))] ?? 'off'
}
