export { discoverPlugins, type DiscoverOptions } from './discover'
export { emptySnapshot, findPlugin, findTool, pluginToolNames, splitToolName } from './registry'
export type { InputCheck, LoadedPlugin, PluginRegistrySnapshot } from './types'
export {
  createPluginHost,
  type PluginHealth,
  type PluginHost,
  type PluginHostDeps,
  type ReloadStats,
} from './pluginHost'
export { reloadRoute, reloadStats, requestReload } from './reloadRequests'
