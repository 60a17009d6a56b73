/**
 * Permissions of sites' own tools (WebMCP), under `sites` in config.json. A site is an origin; it is
 * off until the user turns it on. Resolution: the skip flag (ask runs as auto, off stays off), then the
 * tool's own setting, then the site's default, then off. A tool's ask or auto holds only for the
 * declaration the user saw (its hash): when the site changes the tool's title, description, schema or
 * annotations, the site's default applies again until the user sets the tool once more. An off set on
 * a tool always holds: a change never loosens it. Declared annotations (`readOnlyHint`...) play no part.
 */
import type { Permission } from '../protocol'
import type { Config, SitePermissionConfig } from './schema'

export type SitesConfig = NonNullable<Config['sites']>

const entryOf = (sites: SitesConfig | undefined, origin: string): SitePermissionConfig | undefined =>
  sites && Object.hasOwn(sites, origin) ? sites[origin] : undefined

/** `https://Example.com:443/path` -> `https://example.com`; undefined for anything but an http(s) origin. */
export function normalizeOrigin(text: string): string | undefined {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return undefined
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined
  if (url.username || url.password) return undefined
  return url.origin
}

/** The site's default permission (off when it is not listed). */
export function siteDefaultPermission(sites: SitesConfig | undefined, origin: string): Permission {
  return entryOf(sites, origin)?.permission ?? 'off'
}

/** Whether bridge looks at a site's pages at all: its default or any of its tools is not off. */
export function isSiteEnabled(sites: SitesConfig | undefined, origin: string): boolean {
  const entry = entryOf(sites, origin)
  if (!entry) return false
  if (entry.permission !== undefined && entry.permission !== 'off') return true
  return Object.values(entry.tools ?? {}).some((t) => t.permission !== 'off')
}

/** The origins bridge looks at (see isSiteEnabled). */
export function enabledSites(sites: SitesConfig | undefined): string[] {
  return Object.keys(sites ?? {}).filter((origin) => isSiteEnabled(sites, origin))
}

export interface SiteToolResolution {
  permission: Permission
  /** The tool's own setting, when it applies to this declaration. */
  toolPermission?: Permission
  /** The tool has an ask/auto setting made for another declaration. */
  changed: boolean
}

/** Effective permission of one site tool whose current declaration hashes to `declared`. */
export function resolveSiteToolPermission(query: {
  sites: SitesConfig | undefined
  origin: string
  tool: string
  declared: string
  skipPermissions: boolean
}): SiteToolResolution {
  const entry = entryOf(query.sites, query.origin)
  const own = entry?.tools && Object.hasOwn(entry.tools, query.tool) ? entry.tools[query.tool] : undefined
  const holds = own !== undefined && (own.permission === 'off' || own.declared === query.declared)
  const configured = holds ? own.permission : (entry?.permission ?? 'off')
  return {
    permission: query.skipPermissions && configured === 'ask' ? 'auto' : configured,
    ...(holds ? { toolPermission: own.permission } : {}),
    changed: own !== undefined && !holds,
  }
}

/** Sets a site's default permission. */
export function withSitePermission(
  sites: SitesConfig | undefined,
  origin: string,
  permission: Permission,
): SitesConfig {
  return { ...sites, [origin]: { ...entryOf(sites, origin), permission } }
}

/**
 * Sets one tool's permission; ask and auto bind `declared` (the declaration the user saw), which a
 * caller must know: a tool not seen yet can only be set off.
 */
export function withSiteToolPermission(
  sites: SitesConfig | undefined,
  origin: string,
  tool: string,
  permission: Permission,
  declared: string | undefined,
): SitesConfig {
  if (permission !== 'off' && declared === undefined)
    throw new Error(`the tool "${tool}" of ${origin} has not been seen: it can only be set off`)
  const entry = entryOf(sites, origin) ?? {}
  const setting = permission === 'off' || declared === undefined ? { permission } : { permission, declared }
  return { ...sites, [origin]: { ...entry, tools: { ...entry.tools, [tool]: setting } } }
}
