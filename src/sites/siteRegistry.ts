/**
 * What the daemon knows of sites' own tools: the extension's last `sites.report` and, from it and
 * config.json, the sites view the catalog lists (rebuilt only when the report, the settings or the
 * skip flag change: one new snapshot each time, which the catalog notices by identity).
 */
import type { SitesConfig } from '../config/sitePermissions'
import type { SitesReport } from '../protocol'
import { buildSites, type SitesView } from './siteTools'

export interface SiteRegistry {
  /** The current view (the same object until something it depends on changes). */
  view(): SitesView
  /** A new report from the extension. */
  report(report: SitesReport): void
  /** The extension is gone: no page's tools are reachable. */
  clear(): void
}

const EMPTY: SitesReport = { tabs: [] }

export function createSiteRegistry(deps: {
  sites(): SitesConfig | undefined
  skipPermissions(): boolean
}): SiteRegistry {
  let report: SitesReport = EMPTY
  let built:
    { report: SitesReport; sites: SitesConfig | undefined; skip: boolean; view: SitesView } | undefined
  return {
    view() {
      const sites = deps.sites()
      const skip = deps.skipPermissions()
      if (!built || built.report !== report || built.sites !== sites || built.skip !== skip)
        built = { report, sites, skip, view: buildSites(report, sites, skip) }
      return built.view
    },
    report(next) {
      report = next
    },
    clear() {
      report = EMPTY
    },
  }
}
