/**
 * What the daemon does when sites' own tools change (a page registered or dropped one, a tab closed or
 * navigated, a setting changed, the extension went away): each site with tools gets a pluginTab actor
 * (call slots, the tab an approval names) fed with the tabs that declare its tools, the extension hears
 * which sites to watch (`sites.changed`), and MCP sessions hear `tools/list_changed` when their list
 * really changed, at most once a second (a page that churns its tools cannot flood agents).
 */
import type { ToolCatalog } from '../catalog/toolCatalog'
import type { TabInfo, TabStateName } from '../protocol'
import type { ExtensionPort } from '../ws/extensionSockets'
import type { SiteRegistry } from './siteRegistry'
import { throttle } from './throttle'

/** Shortest time between two `tools/list_changed` caused by pages' own tools. */
export const SITE_LIST_CHANGED_INTERVAL_MS = 1_000

export interface SiteAnnouncementsDeps {
  catalog: ToolCatalog
  registry: SiteRegistry
  extension: {
    port: Pick<ExtensionPort, 'notify'>
    syncPlugins(names: readonly string[]): void
    tabStateChanged(plugin: string, state: TabStateName, tabs: TabInfo[]): boolean
  }
  mcp: { toolsChanged(): void }
}

export interface SiteAnnouncements {
  /** The origins that need a pluginTab actor now (turned on, or with tools open). */
  origins(): string[]
  /** `announced`: the caller tells MCP sessions itself (a setting changed), so this does not again. */
  changed(options?: { announced?: boolean }): void
  stop(): void
}

export function createSiteAnnouncements(deps: SiteAnnouncementsDeps): SiteAnnouncements {
  const { catalog, registry, extension } = deps
  let listedBefore = ''
  const listChanged = throttle(SITE_LIST_CHANGED_INTERVAL_MS, () => {
    const listed = catalog.listedJson()
    if (listed !== listedBefore) deps.mcp.toolsChanged()
    listedBefore = listed
  })
  const origins = () => catalog.siteStates().map((s) => s.origin)
  return {
    origins,
    changed: (options) => {
      const sites = catalog.siteStates()
      extension.syncPlugins([...catalog.pluginStates().map((p) => p.name), ...origins()])
      const tools = registry.view().tools
      for (const { origin } of sites) {
        const tabs = tools.filter((t) => t.origin === origin).flatMap((t) => t.tabs)
        const unique = [...new Map(tabs.map((tab) => [tab.tabId, tab])).values()]
        extension.tabStateChanged(origin, unique.length > 0 ? 'ready' : 'closed', unique)
      }
      extension.port.notify('sites.changed', { sites })
      if (options?.announced) listedBefore = catalog.listedJson()
      else listChanged()
    },
    stop: () => listChanged.cancel(),
  }
}
