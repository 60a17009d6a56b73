import type { Permission, SiteState, SiteToolState } from '../shared/wireTypes'
import { command } from './background'
import { PermissionControl } from './PermissionControl'
import { Visible } from './Visible'

const HINTS: [keyof SiteToolState['annotations'], string][] = [
  ['readOnlyHint', 'says read-only'],
  ['destructiveHint', 'says destructive'],
  ['consequentialHint', 'says consequential'],
  ['untrustedContentHint', 'says its results hold untrusted content'],
]

function set(origin: string, tool: string | undefined, permission: Permission, onError: (m: string) => void) {
  void command({
    type: 'setSitePermission',
    origin,
    ...(tool !== undefined ? { tool } : {}),
    permission,
  }).then((r) => {
    if (!r.ok) onError(r.message)
  })
}

function SiteTool({
  origin,
  tool,
  connected,
  onError,
}: {
  origin: string
  tool: SiteToolState
  connected: boolean
  onError: (m: string) => void
}) {
  const hints = HINTS.filter(([key]) => tool.annotations[key] === true).map(([, label]) => label)
  return (
    <li class="site-tool" data-testid={`site-tool-${tool.fullName}`}>
      <div class="row">
        <span class="grow">
          <code>
            <Visible text={tool.name} />
          </code>
          {tool.title && (
            <span class="muted">
              {' '}
              <Visible text={tool.title} />
            </span>
          )}
        </span>
        <PermissionControl
          value={tool.toolPermission ?? tool.permission}
          testId="site-tool-permission"
          label={`${tool.name} permission`}
          disabled={!connected || tool.unavailable !== undefined}
          onChange={(permission) => set(origin, tool.name, permission, onError)}
        />
      </div>
      <p class="small muted" data-testid="site-tool-description">
        <Visible text={tool.description} />
      </p>
      <p class="small muted">
        Agents call it as <code>{tool.fullName}</code>
        {hints.length > 0 && ` · the site ${hints.join(', ')} (a claim, not a permission)`}
      </p>
      {tool.changed && (
        <p class="small warning" data-testid="site-tool-changed">
          The site changed this tool since you set it: the site&apos;s default applies until you set it again.
        </p>
      )}
      {tool.unavailable !== undefined && (
        <p class="small error" data-testid="site-tool-unavailable">
          Unavailable: <Visible text={tool.unavailable} />
        </p>
      )}
    </li>
  )
}

/**
 * Sites' own tools (WebMCP). A site is off until turned on here (or with `bridge site set`); while
 * off, bridge does not look at its pages, so for the active tab the panel only offers the switch.
 * The tools' names, titles and descriptions are the site's words, shown as text.
 */
export function SiteList({
  sites,
  activeOrigin,
  connected,
  onError,
}: {
  sites: SiteState[]
  activeOrigin: string | undefined
  connected: boolean
  onError: (m: string) => void
}) {
  const activeOff = activeOrigin !== undefined && !sites.some((s) => s.origin === activeOrigin && s.enabled)
  if (sites.length === 0 && !activeOff) return null
  return (
    <section data-testid="sites">
      <h2>Sites&apos; own tools</h2>
      {activeOff && (
        <div class="row" data-testid="active-site">
          <span class="grow small">
            Let agents use the tools <code>{activeOrigin}</code> declares (WebMCP), asking you first
          </span>
          <button
            type="button"
            data-testid="active-site-on"
            disabled={!connected}
            onClick={() => set(activeOrigin, undefined, 'ask', onError)}
          >
            Turn on
          </button>
        </div>
      )}
      <ul class="plain">
        {sites.map((site) => (
          <li key={site.origin} data-testid={`site-${site.origin}`}>
            <div class="row">
              <span class="grow">
                <strong>{site.origin}</strong>{' '}
                <span class="muted small">
                  {site.tools.length} tool{site.tools.length === 1 ? '' : 's'} declared
                  {site.tabIds.length > 0
                    ? ` in ${site.tabIds.length} tab${site.tabIds.length === 1 ? '' : 's'}`
                    : ''}
                </span>
              </span>
              <PermissionControl
                value={site.permission}
                testId="site-permission"
                label={`${site.origin} default permission`}
                disabled={!connected}
                onChange={(permission) => set(site.origin, undefined, permission, onError)}
              />
            </div>
            {site.tools.length > 0 && (
              <ul class="plain tools">
                {site.tools.map((tool) => (
                  <SiteTool
                    key={tool.fullName}
                    origin={site.origin}
                    tool={tool}
                    connected={connected}
                    onError={onError}
                  />
                ))}
              </ul>
            )}
          </li>
        ))}
      </ul>
    </section>
  )
}
