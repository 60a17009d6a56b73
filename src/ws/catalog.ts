import {
  isReviewed,
  pluginDefaultPermission,
  resolvePermission,
  type PermissionsConfig,
  type PluginBuildIdentity,
} from '../config/permissions'
import {
  BROWSER_PLUGIN,
  type FailedPlugin,
  type Permission,
  type PluginState,
  type ToolState,
} from '../protocol'
import type { LoadedPlugin } from '../plugins/types'

/** A loaded plugin as the tool call path needs it: the plugin registry's own record. */
export type CatalogPlugin = LoadedPlugin

/** A built-in tool (src/tools BROWSER_TOOLS). */
export interface CatalogBrowserTool {
  name: string
  displayName: string
  description: string
  inputSchema: Record<string, unknown>
}

/** What the daemon knows right now: read on every use, never cached here. */
export interface CatalogSource {
  plugins(): readonly CatalogPlugin[]
  failedPlugins(): FailedPlugin[]
  browserTools(): readonly CatalogBrowserTool[]
  permissions(): PermissionsConfig
  skipPermissions(): boolean
}

/** One callable tool with its owner and effective permission. */
export interface CatalogTool {
  /** Prefixed name for plugin tools, the tool's own name for built-ins. */
  fullName: string
  plugin: string
  /** Permission key: base name for plugin tools, full name for built-ins. */
  key: string
  description: string
  inputSchema: Record<string, unknown>
  permission: Permission
  pluginVersion?: string
  /** The plugin build a review is bound to (package, version, adapter hash). */
  pluginBuild?: PluginBuildIdentity
}

export function effectivePermission(
  source: CatalogSource,
  plugin: string,
  key: string,
  installed?: PluginBuildIdentity,
): Permission {
  return resolvePermission({
    permissions: source.permissions(),
    plugin,
    tool: key,
    installed,
    skipPermissions: source.skipPermissions(),
  })
}

/** Every tool, built-ins first, with its effective permission. */
export function listTools(source: CatalogSource): CatalogTool[] {
  const tools: CatalogTool[] = source.browserTools().map((tool) => ({
    fullName: tool.name,
    plugin: BROWSER_PLUGIN,
    key: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema,
    permission: effectivePermission(source, BROWSER_PLUGIN, tool.name),
  }))
  for (const plugin of source.plugins())
    for (const tool of plugin.tools)
      tools.push({
        fullName: `${plugin.name}_${tool.name}`,
        plugin: plugin.name,
        key: tool.name,
        description: tool.description,
        inputSchema: tool.inputSchema,
        permission: effectivePermission(source, plugin.name, tool.name, plugin),
        pluginVersion: plugin.version,
        pluginBuild: plugin,
      })
  return tools
}

/** Finds a tool by the name an MCP client called. */
export function findCatalogTool(source: CatalogSource, fullName: string): CatalogTool | undefined {
  return listTools(source).find((tool) => tool.fullName === fullName)
}

export function browserToolStates(source: CatalogSource): ToolState[] {
  return source.browserTools().map((tool) => ({
    name: tool.name,
    displayName: tool.displayName,
    description: tool.description,
    permission: effectivePermission(source, BROWSER_PLUGIN, tool.name),
  }))
}

/** Plugins as the extension sees them (sync.full, plugins.changed, config.getState). */
export function pluginStates(source: CatalogSource): PluginState[] {
  const permissions = source.permissions()
  return source.plugins().map((plugin) => ({
    name: plugin.name,
    displayName: plugin.displayName,
    version: plugin.version,
    source: plugin.source,
    sdkVersion: plugin.sdkVersion,
    urlPatterns: plugin.urlPatterns,
    adapterFile: plugin.adapterFile,
    adapterHash: plugin.adapterHash,
    ...(plugin.iconSvg === undefined ? {} : { iconSvg: plugin.iconSvg }),
    permission: pluginDefaultPermission(permissions, plugin.name),
    reviewed: isReviewed(permissions, plugin.name, plugin),
    tools: plugin.tools.map((tool) => ({
      name: tool.name,
      displayName: tool.displayName,
      description: tool.description,
      permission: effectivePermission(source, plugin.name, tool.name, plugin),
    })),
    ...(plugin.source === 'local' ? { path: plugin.path } : {}),
  }))
}
