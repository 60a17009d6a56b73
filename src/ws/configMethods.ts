import type { Config } from '../config/schema'
import type { PermissionsConfig, PluginBuildIdentity } from '../config/permissions'
import { withPluginPermission, withReviewedVersion, withToolPermission } from '../config/permissions'
import type { ToolCatalog } from '../catalog/toolCatalog'
import { BROWSER_PLUGIN, JsonRpcErrorCode } from '../protocol'
import { RpcError } from '../rpc/peer'
import type { MethodHandlers } from './methodHandler'

type ConfigMethodName =
  | 'config.getState'
  | 'config.setToolPermission'
  | 'config.setPluginPermission'
  | 'config.markReviewed'
  | 'config.setSkipPermissions'

export interface ConfigMethodsDeps {
  catalog: ToolCatalog
  /** Serialized, atomic read-modify-write of config.json (the configStore). */
  updateConfig(mutate: (current: Config) => Config): Promise<unknown>
  /** After a change: broadcast plugins.changed, tell MCP sessions the tool list changed. */
  onChanged(): void
}

/** Answers of the extension's `config.*` requests. Every change goes through the configStore. */
export function createConfigMethods(deps: ConfigMethodsDeps): Pick<MethodHandlers, ConfigMethodName> {
  const { catalog } = deps
  /** The installed build of a plugin (what a review binds), or a -32602 for a name that is not loaded. */
  const buildOf = (plugin: string): PluginBuildIdentity | undefined => {
    if (plugin === BROWSER_PLUGIN) return undefined
    const found = catalog.plugin(plugin)
    if (!found) throw new RpcError(JsonRpcErrorCode.invalidParams, `no plugin named "${plugin}" is loaded`)
    return found
  }
  const assertTool = (plugin: string, tool: string) => {
    const known =
      plugin === BROWSER_PLUGIN
        ? catalog.get(tool)?.plugin === BROWSER_PLUGIN
        : catalog.plugin(plugin)?.tools.some((t) => t.name === tool) === true
    if (!known) throw new RpcError(JsonRpcErrorCode.invalidParams, `plugin "${plugin}" has no tool "${tool}"`)
  }
  const changePermissions = async (change: (permissions: PermissionsConfig) => PermissionsConfig) => {
    await deps.updateConfig((config) => ({ ...config, permissions: change(config.permissions) }))
    deps.onChanged()
    return { ok: true }
  }

  return {
    'config.getState': () =>
      Promise.resolve({
        plugins: catalog.pluginStates(),
        browserTools: catalog.browserToolStates(),
        skipPermissions: catalog.skipPermissions(),
        failedPlugins: catalog.failedPlugins(),
      }),
    'config.setToolPermission': async (params) => {
      const { plugin, tool, permission } = params
      const build = buildOf(plugin)
      assertTool(plugin, tool)
      return changePermissions((p) => withToolPermission(p, plugin, tool, permission, build))
    },
    'config.setPluginPermission': async (params) => {
      const { plugin, permission } = params
      const build = buildOf(plugin)
      return changePermissions((p) => withPluginPermission(p, plugin, permission, build))
    },
    'config.markReviewed': async (params) => {
      const { plugin, version } = params
      const build = buildOf(plugin)
      return changePermissions((p) => withReviewedVersion(p, plugin, version, build))
    },
    'config.setSkipPermissions': async (params) => {
      const { enabled } = params
      await deps.updateConfig((config) => ({ ...config, skipPermissions: enabled }))
      deps.onChanged()
      return { ok: true }
    },
  }
}
