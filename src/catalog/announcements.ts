/**
 * What the daemon tells everyone when the tool set changes: `sync.full` and `plugins.changed` to the
 * extension, `plugin.update` for a rebuilt local plugin (its open tabs then reload to start with the new
 * build), `notifications/tools/list_changed` to every MCP session. The catalog is the one source of every payload.
 */
import type { NotificationParams, ServerNotifications } from '../protocol'
import { BRIDGE_VERSION, PROTOCOL_VERSION } from '../protocol/constants'
import type { ExtensionPort } from '../ws/extensionSockets'
import type { ToolCatalog } from './toolCatalog'

/** The whole state the extension needs on connect (and after every reload). */
export function syncFullOf(
  catalog: ToolCatalog,
): NotificationParams<typeof ServerNotifications, 'sync.full'> {
  return {
    protocolVersion: PROTOCOL_VERSION,
    serverVersion: BRIDGE_VERSION,
    skipPermissions: catalog.skipPermissions(),
    plugins: catalog.pluginStates(),
    browserTools: catalog.browserToolStates(),
    sites: catalog.siteStates(),
  }
}

export interface AnnouncementsDeps {
  catalog: ToolCatalog
  /** The extension link: its port, and the tab actors it keeps one per plugin. */
  extension: { port: Pick<ExtensionPort, 'notify'>; syncPlugins(names: readonly string[]): void }
  mcp: { toolsChanged(): void }
  /** Sites' own tools (src/sites/siteAnnouncements.ts): their tab actors and announcements. */
  sites?: { origins(): string[]; changed(options?: { announced?: boolean }): void }
}

export interface Announcements {
  /** Permissions or the skip flag changed (side panel, "always allow", CLI). */
  configChanged(): void
  /** A reload produced a new plugin set: tab actors follow it, then everyone hears it. */
  pluginsReloaded(): void
}

export function createAnnouncements(deps: AnnouncementsDeps): Announcements {
  const { catalog, extension } = deps
  /** Adapter hash per plugin as last announced, to tell which local plugins a reload rebuilt. */
  let builds = new Map<string, string>()
  const configChanged = () => {
    extension.port.notify('plugins.changed', {
      plugins: catalog.pluginStates(),
      failedPlugins: catalog.failedPlugins(),
      browserTools: catalog.browserToolStates(),
      skipPermissions: catalog.skipPermissions(),
    })
    deps.sites?.changed({ announced: true })
    deps.mcp.toolsChanged()
  }
  return {
    configChanged,
    pluginsReloaded: () => {
      const states = catalog.pluginStates()
      extension.syncPlugins([...states.map((p) => p.name), ...(deps.sites?.origins() ?? [])])
      // In every mode: the author's own rebuild (a package's new build needs a review first).
      for (const state of states)
        if (
          state.source === 'local' &&
          builds.has(state.name) &&
          builds.get(state.name) !== state.adapterHash
        )
          extension.port.notify('plugin.update', state)
      builds = new Map(states.map((state) => [state.name, state.adapterHash]))
      extension.port.notify('sync.full', syncFullOf(catalog))
      configChanged()
    },
  }
}
