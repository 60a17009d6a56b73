/**
 * From what the extension reports (the tools pages of turned-on sites declare) and the user's
 * settings, the sites' tools as the catalog lists them. Everything a page wrote is untrusted text: it
 * is neutralized (src/protocol/untrustedText.ts), capped per tool, and a site has a fixed budget in
 * the tool list, so no page can spend an agent's context. A tool is unavailable (shown in the side
 * panel with the reason, never listed) when its schema is not usable or its site is over budget.
 */
import { createHash } from 'node:crypto'
import { isSiteEnabled, resolveSiteToolPermission, type SitesConfig } from '../config/sitePermissions'
import {
  SITE_TOOL_LIMITS,
  type DeclaredSiteTool,
  type Permission,
  type SiteState,
  type SitesReport,
  type SiteToolAnnotations,
  type TabInfo,
} from '../protocol'
import { declarationText } from '../protocol/siteTools'
import { neutralizeDeep, neutralizeText } from '../protocol/untrustedText'
import type { Validator } from '../validation'
import { compileSiteSchema } from './siteSchema'
import { siteToolNames } from './siteNames'

/** One site tool, ready for the catalog. */
export interface SiteTool {
  origin: string
  /** The name the page declared: what `tool.dispatch` carries. */
  name: string
  fullName: string
  title: string
  description: string
  annotations: SiteToolAnnotations
  hash: string
  permission: Permission
  toolPermission?: Permission
  changed: boolean
  /** Why agents cannot use it; undefined when they can. */
  unavailable?: string
  /** The schema shown to agents: the page's, with its strings neutralized. */
  listedSchema: Record<string, unknown>
  validate: Validator
  /** Tabs that declare exactly this declaration. */
  tabs: TabInfo[]
}

export interface SitesView {
  tools: SiteTool[]
  /** Every turned-on site and every site with tools open, for the panel, the CLI and /health. */
  sites: SiteState[]
}

/** sha256 of what a per-tool setting binds: title, description, schema text, annotations. */
export function declarationHash(tool: DeclaredSiteTool): string {
  return createHash('sha256').update(declarationText(tool)).digest('hex')
}

interface Found {
  declared: DeclaredSiteTool
  hash: string
  tabs: TabInfo[]
}

const refuseAll: Validator = () => ({ ok: false, message: 'the tool is unavailable' })

function annotationsOf(a: SiteToolAnnotations): SiteToolAnnotations {
  const out: SiteToolAnnotations = {}
  for (const key of ['readOnlyHint', 'untrustedContentHint', 'destructiveHint', 'consequentialHint'] as const)
    if (typeof a[key] === 'boolean') out[key] = a[key]
  return out
}

/** Builds the view; `report` is the extension's last `sites.report` (frames of sites that are off are ignored). */
export function buildSites(
  report: SitesReport,
  sites: SitesConfig | undefined,
  skipPermissions: boolean,
): SitesView {
  // origin -> declared name -> { the first declaration seen, the tabs declaring exactly it }
  const found = new Map<string, Map<string, Found>>()
  for (const tab of report.tabs)
    for (const frame of tab.frames) {
      if (!isSiteEnabled(sites, frame.origin)) continue
      const byName = found.get(frame.origin) ?? new Map<string, Found>()
      found.set(frame.origin, byName)
      for (const declared of frame.tools) {
        const hash = declarationHash(declared)
        const entry = byName.get(declared.name) ?? { declared, hash, tabs: [] }
        byName.set(declared.name, entry)
        if (entry.hash === hash && !entry.tabs.some((t) => t.tabId === tab.tabId))
          entry.tabs.push({ tabId: tab.tabId, url: tab.url, title: tab.title, ready: true })
      }
    }
  const names = siteToolNames(
    [...found].flatMap(([origin, byName]) => [...byName.keys()].map((name) => ({ origin, name }))),
  )
  const tools: SiteTool[] = []
  for (const [origin, byName] of found) {
    let spent = 0
    for (const name of [...byName.keys()].sort()) {
      const { declared, hash, tabs } = byName.get(name)!
      const resolution = resolveSiteToolPermission({
        sites,
        origin,
        tool: name,
        declared: hash,
        skipPermissions,
      })
      const description = neutralizeText(declared.description, SITE_TOOL_LIMITS.listedDescriptionChars)
      const compiled = compileSiteSchema(declared.inputSchema, declared.schemaTooLong === true)
      const listedSchema = compiled.ok
        ? (neutralizeDeep(compiled.value.schema, 500) as Record<string, unknown>)
        : { type: 'object' }
      let unavailable = compiled.ok ? undefined : compiled.message
      const schemaChars = JSON.stringify(listedSchema).length
      if (!unavailable && schemaChars > SITE_TOOL_LIMITS.listedSchemaChars)
        unavailable = `its input schema takes ${schemaChars} characters, more than the ${SITE_TOOL_LIMITS.listedSchemaChars} bridge lists for one tool`
      if (!unavailable) {
        spent += description.length + schemaChars
        if (spent > SITE_TOOL_LIMITS.listedCharsPerSite)
          unavailable = `the site's tools are over bridge's budget of ${SITE_TOOL_LIMITS.listedCharsPerSite} characters in the tool list`
      }
      tools.push({
        origin,
        name,
        fullName: names.get(`${origin}\n${name}`)!,
        title: neutralizeText(declared.title, 100),
        description,
        annotations: annotationsOf(declared.annotations),
        hash,
        permission: resolution.permission,
        ...(resolution.toolPermission ? { toolPermission: resolution.toolPermission } : {}),
        changed: resolution.changed,
        ...(unavailable ? { unavailable } : {}),
        listedSchema: { ...listedSchema, type: 'object' },
        validate: compiled.ok && unavailable === undefined ? compiled.value.validate : refuseAll,
        tabs,
      })
    }
  }
  const origins = new Set([
    ...Object.keys(sites ?? {}).filter((o) => isSiteEnabled(sites, o)),
    ...found.keys(),
  ])
  const siteStates: SiteState[] = [...origins].sort().map((origin) => {
    const own = tools.filter((t) => t.origin === origin)
    return {
      origin,
      permission: sites && Object.hasOwn(sites, origin) ? (sites[origin]?.permission ?? 'off') : 'off',
      enabled: isSiteEnabled(sites, origin),
      tabIds: [...new Set(own.flatMap((t) => t.tabs.map((tab) => tab.tabId)))],
      tools: own.map((t) => ({
        name: t.name,
        fullName: t.fullName,
        title: t.title,
        description: t.description,
        annotations: t.annotations,
        permission: t.permission,
        ...(t.toolPermission ? { toolPermission: t.toolPermission } : {}),
        ...(t.changed ? { changed: true } : {}),
        ...(t.unavailable ? { unavailable: t.unavailable } : {}),
        hash: t.hash,
      })),
    }
  })
  return { tools, sites: siteStates }
}
