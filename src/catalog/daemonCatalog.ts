/**
 * The daemon's tool catalog, over its live sources: the plugin host's current snapshot, the built-in
 * tools, config.json as the configStore actor holds it (permissions, upload folders) and the sites'
 * own tools the extension reports.
 */
import { createBrowserToolContext } from '../config/uploadFolders'
import type { Config } from '../config/schema'
import type { PluginHost } from '../plugins'
import type { SiteRegistry } from '../sites/siteRegistry'
import {
  createToolCatalog,
  type CatalogBrowserTool,
  type CatalogWorkflowTool,
  type ToolCatalog,
} from './toolCatalog'

export interface DaemonCatalogParts {
  pluginHost: Pick<PluginHost, 'snapshot'>
  browserTools: () => readonly CatalogBrowserTool[]
  /** config.json now (read on every rebuild check, so a change is seen at once). */
  config: () => Readonly<Config>
  /** BRIDGE_DANGEROUSLY_SKIP_PERMISSIONS or config.json's `skipPermissions`. */
  skipPermissions: () => boolean
  siteRegistry: Pick<SiteRegistry, 'view'>
  /** Saved workflows as tools (src/workflows). */
  workflows?: () => readonly CatalogWorkflowTool[]
}

export function createDaemonCatalog(parts: DaemonCatalogParts): ToolCatalog {
  const { pluginHost, config } = parts
  return createToolCatalog({
    plugins: () => pluginHost.snapshot().plugins,
    failedPlugins: () => pluginHost.snapshot().failedPlugins,
    browserTools: parts.browserTools,
    permissions: () => config().permissions,
    skipPermissions: parts.skipPermissions,
    // Upload and drop read files by path only from the folders config.json allows (none by default).
    browserToolContext: createBrowserToolContext(() => config().uploadFolders ?? []),
    sites: () => parts.siteRegistry.view(),
    ...(parts.workflows ? { workflows: parts.workflows } : {}),
  })
}
