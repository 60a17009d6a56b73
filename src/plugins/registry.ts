/**
 * Lookups over a discovery snapshot. Tool names split by the one rule of src/protocol/toolNames.ts.
 */
import type { ToolManifest } from '../protocol/manifest'
import { pluginToolName, splitToolName } from '../protocol/toolNames'
import type { LoadedPlugin, PluginRegistrySnapshot } from './types'

export { splitToolName }

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
  return plugin.tools.map((t) => pluginToolName(plugin.name, t.name))
}

export function emptySnapshot(): PluginRegistrySnapshot {
  return { plugins: [], failedPlugins: [], discoveryErrors: [] }
}
