/**
 * Lookups over a discovery snapshot. Plugin names never contain `_`, so the first `_` of a prefixed
 * tool name splits plugin and tool.
 */
import type { ToolManifest } from '../protocol/manifest'
import type { LoadedPlugin, PluginRegistrySnapshot } from './types'

/** `notes_list_notes` -> `{ plugin: 'notes', tool: 'list_notes' }`; undefined without a `_`. */
export function splitToolName(fullName: string): { plugin: string; tool: string } | undefined {
  const i = fullName.indexOf('_')
  if (i <= 0 || i === fullName.length - 1) return undefined
  return { plugin: fullName.slice(0, i), tool: fullName.slice(i + 1) }
}

export function findPlugin(snapshot: PluginRegistrySnapshot, name: string): LoadedPlugin | undefined {
  return snapshot.plugins.find((p) => p.name === name)
}

/** The plugin and tool a prefixed tool name refers to, if both are loaded. */
export function findTool(
  snapshot: PluginRegistrySnapshot,
  fullName: string,
): { plugin: LoadedPlugin; tool: ToolManifest } | undefined {
  const parts = splitToolName(fullName)
  if (!parts) return undefined
  const plugin = findPlugin(snapshot, parts.plugin)
  const tool = plugin?.tools.find((t) => t.name === parts.tool)
  return plugin && tool ? { plugin, tool } : undefined
}

/** Prefixed names of every plugin tool. */
export function pluginToolNames(plugin: LoadedPlugin): string[] {
  return plugin.tools.map((t) => `${plugin.name}_${t.name}`)
}

export function emptySnapshot(): PluginRegistrySnapshot {
  return { plugins: [], failedPlugins: [], discoveryErrors: [] }
}
