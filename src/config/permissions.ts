import { BROWSER_PLUGIN, type Permission } from '../protocol'
import type { PluginSource, ReviewChange } from '../protocol/manifest'
import { browserToolDefaultCap, browserToolListedByDefault } from '../tools'

/** One plugin's entry under `permissions` in config.json (`browser` holds the built-in tools). */
export interface PluginPermissionConfig {
  permission?: Permission
  tools?: Record<string, Permission>
  reviewedVersion?: string
  /** The package that was reviewed, scope included (`@bridge-mcp/bridge-plugin-notes`). */
  reviewedPackage?: string
  /** sha256 hex of the adapter bundle that was reviewed. */
  reviewedAdapterHash?: string
  /**
   * Local plugins only: the folder that was reviewed. Rebuilds in that folder keep the review (the
   * author's own edit-build loop); a new version, another package or another folder still reset it.
   */
  reviewedPath?: string
  /** `browser` only: the groups of built-in tools beyond `core` that its default permission reaches. */
  groups?: string[]
}

/** What a review is bound to: the installed package, its version and its adapter's content hash. */
export interface PluginBuildIdentity {
  packageName: string
  version: string
  adapterHash: string
  /** `local` for a plugin folder in `localPlugins`, `npm` for an installed package. */
  source?: PluginSource
  /** The plugin's folder; recorded with a review of a local plugin. */
  path?: string
}
export type PermissionsConfig = Record<string, PluginPermissionConfig>

export interface PermissionQuery {
  permissions: PermissionsConfig
  /** Plugin name, or `browser` for built-in tools. */
  plugin: string
  /** Permission key: the base name for plugin tools, the full name (`browser_navigate`) for built-ins. */
  tool: string
  /** The installed plugin build; absent for built-in tools (they ship with the daemon). */
  installed?: PluginBuildIdentity
  /** Skip flag from BRIDGE_DANGEROUSLY_SKIP_PERMISSIONS=1 or config.setSkipPermissions. */
  skipPermissions: boolean
}

const entryOf = (permissions: PermissionsConfig, plugin: string): PluginPermissionConfig | undefined =>
  Object.hasOwn(permissions, plugin) ? permissions[plugin] : undefined

/**
 * What differs between the recorded review and the installed build, or undefined when the installed
 * build counts as reviewed. Every tool of the plugin is off while something differs, until the user
 * sets a permission again or marks it reviewed.
 * - `package`: another package supplies the plugin's name.
 * - `version`: another version than the one reviewed (SPEC: an update resets permissions).
 * - `adapter`: the same version with another adapter bundle. A package's adapter must not change
 *   under a reviewed version; a local plugin's may, in the folder that was reviewed: that is its
 *   author rebuilding it, and resetting on every save would break the author's loop.
 * - `unrecorded`: an entry written before reviews recorded the package and adapter (only
 *   `reviewedVersion`), which is not a review of any particular build.
 * A plugin with no recorded review uses its configured permissions as they are (DESIGN section 6).
 */
export function reviewChange(
  permissions: PermissionsConfig,
  plugin: string,
  installed?: PluginBuildIdentity,
): ReviewChange | undefined {
  const entry = entryOf(permissions, plugin)
  if (entry?.reviewedVersion === undefined || installed === undefined) return undefined
  if (entry.reviewedPackage === undefined || entry.reviewedAdapterHash === undefined) return 'unrecorded'
  if (entry.reviewedPackage !== installed.packageName) return 'package'
  if (entry.reviewedVersion !== installed.version) return 'version'
  if (entry.reviewedAdapterHash === installed.adapterHash) return undefined
  const ownRebuild =
    installed.source === 'local' && entry.reviewedPath !== undefined && entry.reviewedPath === installed.path
  return ownRebuild ? undefined : 'adapter'
}

/** False when a review is recorded and the installed build is not the one reviewed (see `reviewChange`). */
export function isReviewed(
  permissions: PermissionsConfig,
  plugin: string,
  installed?: PluginBuildIdentity,
): boolean {
  return reviewChange(permissions, plugin, installed) === undefined
}

/** A plugin's configured default permission (off when none is set). */
export function pluginDefaultPermission(permissions: PermissionsConfig, plugin: string): Permission {
  return entryOf(permissions, plugin)?.permission ?? 'off'
}

/** The configured permission (per-tool override, then plugin default, then off), before skip and review. */
export function configuredPermission(
  permissions: PermissionsConfig,
  plugin: string,
  tool: string,
): Permission {
  const entry = entryOf(permissions, plugin)
  const override = entry?.tools && Object.hasOwn(entry.tools, tool) ? entry.tools[tool] : undefined
  if (override) return override
  const fallback = entry?.permission ?? 'off'
  // The `browser` default reaches the core tools and the groups the user opted into; the rest stay
  // off (unlisted) unless set one by one.
  if (plugin === BROWSER_PLUGIN && !browserToolListedByDefault(tool, entry?.groups ?? [])) return 'off'
  // Some built-ins keep the `browser` default at a distance (src/tools `defaultCap`).
  const cap = plugin === BROWSER_PLUGIN ? browserToolDefaultCap(tool) : undefined
  if (cap === 'off') return 'off'
  if (cap === 'ask' && fallback === 'auto') return 'ask'
  return fallback
}

/**
 * Whether an "allow always" answer may set this tool to auto. Not for built-ins whose `defaultCap` is
 * `off` (JavaScript evaluation): they become auto only when the user sets that tool explicitly.
 */
export function allowAlwaysPersists(plugin: string, tool: string): boolean {
  return !(plugin === BROWSER_PLUGIN && browserToolDefaultCap(tool) === 'off')
}

/**
 * Effective permission of one tool: an unreviewed plugin version is off; otherwise per-tool override,
 * plugin default, off; the skip flag then turns ask into auto (off stays off).
 */
export function resolvePermission(query: PermissionQuery): Permission {
  if (!isReviewed(query.permissions, query.plugin, query.installed)) return 'off'
  const configured = configuredPermission(query.permissions, query.plugin, query.tool)
  return query.skipPermissions && configured === 'ask' ? 'auto' : configured
}

/**
 * Sets one tool's permission. Setting ask or auto records the installed build (package, version,
 * adapter hash) as reviewed, so a user's choice on the current build is what counts from then on.
 */
export function withToolPermission(
  permissions: PermissionsConfig,
  plugin: string,
  tool: string,
  permission: Permission,
  installed?: PluginBuildIdentity,
): PermissionsConfig {
  const entry = entryOf(permissions, plugin) ?? {}
  const next: PluginPermissionConfig = { ...entry, tools: { ...entry.tools, [tool]: permission } }
  return { ...permissions, [plugin]: review(next, permission, plugin, installed) }
}

/** Sets a plugin's default permission (recording the reviewed build for ask or auto). */
export function withPluginPermission(
  permissions: PermissionsConfig,
  plugin: string,
  permission: Permission,
  installed?: PluginBuildIdentity,
): PermissionsConfig {
  const next: PluginPermissionConfig = { ...entryOf(permissions, plugin), permission }
  return { ...permissions, [plugin]: review(next, permission, plugin, installed) }
}

/**
 * Records `version` as reviewed for a plugin: with the installed build's package and adapter hash when
 * `version` is the installed one; otherwise the version alone, which is not a review of any build.
 */
export function withReviewedVersion(
  permissions: PermissionsConfig,
  plugin: string,
  version: string,
  installed?: PluginBuildIdentity,
): PermissionsConfig {
  const {
    reviewedPackage: _p,
    reviewedAdapterHash: _h,
    reviewedPath: _d,
    ...entry
  } = entryOf(permissions, plugin) ?? {}
  const next: PluginPermissionConfig =
    installed?.version === version ? reviewedAs(entry, installed) : { ...entry, reviewedVersion: version }
  return { ...permissions, [plugin]: next }
}

function review(
  entry: PluginPermissionConfig,
  permission: Permission,
  plugin: string,
  installed: PluginBuildIdentity | undefined,
): PluginPermissionConfig {
  if (permission === 'off' || installed === undefined || plugin === BROWSER_PLUGIN) return entry
  return reviewedAs(entry, installed)
}

function reviewedAs(entry: PluginPermissionConfig, installed: PluginBuildIdentity): PluginPermissionConfig {
  const { reviewedPath: _d, ...rest } = entry
  return {
    ...rest,
    reviewedVersion: installed.version,
    reviewedPackage: installed.packageName,
    reviewedAdapterHash: installed.adapterHash,
    ...(installed.source === 'local' && installed.path !== undefined ? { reviewedPath: installed.path } : {}),
  }
}

/** Adds or removes one group of built-in tools that the `browser` default reaches (`all`: every group). */
export function withBrowserGroup(
  permissions: PermissionsConfig,
  group: string,
  add: boolean,
): PermissionsConfig {
  const entry = entryOf(permissions, BROWSER_PLUGIN) ?? {}
  if (add && entry.groups?.includes(group)) return permissions
  const groups = (entry.groups ?? []).filter((g) => g !== group)
  const next = add ? [...groups, group] : groups
  const { groups: _old, ...rest } = entry
  return { ...permissions, [BROWSER_PLUGIN]: next.length ? { ...rest, groups: next } : rest }
}
