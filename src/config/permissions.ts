import { BROWSER_PLUGIN, type Permission } from '../protocol'
import { browserToolDefaultCap } from '../tools'

/** One plugin's entry under `permissions` in config.json (`browser` holds the built-in tools). */
export interface PluginPermissionConfig {
  permission?: Permission
  tools?: Record<string, Permission>
  reviewedVersion?: string
}
export type PermissionsConfig = Record<string, PluginPermissionConfig>

export interface PermissionQuery {
  permissions: PermissionsConfig
  /** Plugin name, or `browser` for built-in tools. */
  plugin: string
  /** Permission key: the base name for plugin tools, the full name (`browser_navigate`) for built-ins. */
  tool: string
  /** Installed plugin version; absent for built-in tools (they ship with the daemon). */
  installedVersion?: string
  /** Skip flag from BRIDGE_DANGEROUSLY_SKIP_PERMISSIONS=1 or config.setSkipPermissions. */
  skipPermissions: boolean
}

const entryOf = (permissions: PermissionsConfig, plugin: string): PluginPermissionConfig | undefined =>
  Object.hasOwn(permissions, plugin) ? permissions[plugin] : undefined

/**
 * False when a reviewedVersion is recorded and differs from the installed version: every tool of the
 * plugin is then off until the user sets a permission again or marks the version reviewed.
 */
export function isReviewed(
  permissions: PermissionsConfig,
  plugin: string,
  installedVersion?: string,
): boolean {
  const reviewed = entryOf(permissions, plugin)?.reviewedVersion
  if (reviewed === undefined || installedVersion === undefined) return true
  return reviewed === installedVersion
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
  if (!isReviewed(query.permissions, query.plugin, query.installedVersion)) return 'off'
  const configured = configuredPermission(query.permissions, query.plugin, query.tool)
  return query.skipPermissions && configured === 'ask' ? 'auto' : configured
}

/**
 * Sets one tool's permission. Setting ask or auto records the installed version as reviewed, so a
 * user's choice on the current version is what counts from then on.
 */
export function withToolPermission(
  permissions: PermissionsConfig,
  plugin: string,
  tool: string,
  permission: Permission,
  installedVersion?: string,
): PermissionsConfig {
  const entry = entryOf(permissions, plugin) ?? {}
  const next: PluginPermissionConfig = { ...entry, tools: { ...entry.tools, [tool]: permission } }
  return { ...permissions, [plugin]: review(next, permission, plugin, installedVersion) }
}

/** Sets a plugin's default permission (recording the reviewed version for ask or auto). */
export function withPluginPermission(
  permissions: PermissionsConfig,
  plugin: string,
  permission: Permission,
  installedVersion?: string,
): PermissionsConfig {
  const next: PluginPermissionConfig = { ...entryOf(permissions, plugin), permission }
  return { ...permissions, [plugin]: review(next, permission, plugin, installedVersion) }
}

/** Records `version` as reviewed for a plugin. */
export function withReviewedVersion(
  permissions: PermissionsConfig,
  plugin: string,
  version: string,
): PermissionsConfig {
  return { ...permissions, [plugin]: { ...entryOf(permissions, plugin), reviewedVersion: version } }
}

function review(
  entry: PluginPermissionConfig,
  permission: Permission,
  plugin: string,
  installedVersion: string | undefined,
): PluginPermissionConfig {
  if (permission === 'off' || installedVersion === undefined || plugin === BROWSER_PLUGIN) return entry
  return { ...entry, reviewedVersion: installedVersion }
}
