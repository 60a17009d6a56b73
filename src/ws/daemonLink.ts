/**
 * The daemon's extension link with what hangs on it: plugin logs relayed to the calls that wrote them, the
 * sites' tool reports, and the announcements of tool and config changes to both sides.
 */
import type { ActorRefFrom } from 'xstate'
import type { bridgeSystemMachine } from '../../machines/bridgeSystemMachine'
import { toolInvocationOf } from '../../machines/systemActors'
import { createAnnouncements, type Announcements } from '../catalog/announcements'
import type { ToolCatalog } from '../catalog/toolCatalog'
import type { McpEndpoint } from '../mcp/mcpEndpoint'
import { requestReload, type PluginHost } from '../plugins'
import { createSiteAnnouncements, type SiteAnnouncements } from '../sites/siteAnnouncements'
import type { SiteRegistry } from '../sites/siteRegistry'
import { ExtensionLink, type ExtensionSockets } from './extensionSockets'
import { daemonMethodHandlers, type DaemonMethodParts } from './methods'
import { PluginLogs } from './pluginLogs'

export interface DaemonLinkParts {
  /** The started root actor: the link feeds the actors of its system. */
  root: ActorRefFrom<typeof bridgeSystemMachine>
  /** The daemon's stores it works with: the extension's sockets, the tool index, plugins, sites. */
  stores: {
    sockets: ExtensionSockets
    catalog: ToolCatalog
    pluginHost: PluginHost
    siteRegistry: SiteRegistry
  }
  configStore: DaemonMethodParts['configStore']
  configDir: string
  workflows: DaemonMethodParts['workflows']
  sessions: McpEndpoint
  /** A running workflow's tool step (src/workflows/daemonWorkflows.ts). */
  workflowToolStep: DaemonMethodParts['workflowToolStep']
}

export interface DaemonLink {
  link: ExtensionLink
  pluginLogs: PluginLogs
  siteAnnouncements: SiteAnnouncements
  announcements: Announcements
}

export function createDaemonLink(parts: DaemonLinkParts): DaemonLink {
  const { root, sessions } = parts
  const { sockets, catalog, pluginHost, siteRegistry } = parts.stores
  const pluginLogs = new PluginLogs({
    isPlugin: (name) => pluginHost.snapshot().plugins.some((p) => p.name === name),
  })
  // link <-> announcements refer to each other: bound late, through these closures.
  const link: ExtensionLink = new ExtensionLink({
    system: root,
    sockets,
    methods: daemonMethodHandlers({
      catalog,
      configStore: parts.configStore,
      configDir: parts.configDir,
      localPluginPaths: () => pluginHost.localPluginPaths(),
      reload: () => requestReload(root.system, 'request'),
      onConfigChanged: () => announcements.configChanged(),
      tabStateChanged: ({ plugin, state, tabs }) => link.tabStateChanged(plugin, state, tabs),
      workflowToolStep: parts.workflowToolStep,
      workflows: parts.workflows,
    }),
    // Bounded, neutralized and tagged with the plugin that wrote it (./pluginLogs), then to the one
    // call it belongs to, which hands it to its own client; an entry of no running call stays in
    // the daemon's log.
    onPluginLog: ({ entries }) => {
      for (const { dispatchId, level, logger, data } of pluginLogs.add(entries))
        if (dispatchId !== undefined)
          toolInvocationOf(root.system, dispatchId)?.send({
            type: 'tool.log',
            plugin: data.plugin,
            entry: { level, logger, data },
          })
    },
    // A call waiting for approval on a declaration that changed hears it (its card is withdrawn).
    onSitesReport: (report) => {
      siteRegistry.report(report)
      siteAnnouncements.changed()
      root.send({ type: 'catalog.changed' })
    },
    onLost: () => (siteRegistry.clear(), siteAnnouncements.changed()),
  })
  const siteAnnouncements = createSiteAnnouncements({
    catalog,
    registry: siteRegistry,
    extension: link,
    mcp: sessions,
  })
  const announcements = createAnnouncements({
    catalog,
    extension: link,
    mcp: sessions,
    sites: siteAnnouncements,
  })
  return { link, pluginLogs, siteAnnouncements, announcements }
}
