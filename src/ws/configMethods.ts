import type { Config } from '../config/schema'
import type { PermissionsConfig, PluginBuildIdentity } from '../config/permissions'
import { withPluginPermission, withReviewedVersion, withToolPermission } from '../config/permissions'
import {
  BROWSER_PLUGIN,
  JsonRpcErrorCode,
  type ClientRequests,
  type ConfigState,
  type RequestParams,
} from '../protocol'
import { browserToolStates, pluginStates, type CatalogSource } from './catalog'
import { RpcError } from './peer'

type Params<K extends keyof typeof ClientRequests> = RequestParams<typeof ClientRequests, K>

export interface ConfigMethodsDeps {
  catalog: CatalogSource
  /** Serialized, atomic read-modify-write of config.json (the configStore). */
  updateConfig(mutate: (current: Config) => Config): Promise<unknown>
  /** After a change: broadcast plugins.changed, tell MCP sessions the tool list changed. */
  onChanged(): void
}

/** Answers of the extension's `config.*` requests. Every change goes through the configStore. */
export function createConfigMethods(
  deps: ConfigMethodsDeps,
): Record<string, (params: unknown) => Promise<unknown>> {
  const { catalog } = deps
  /** The installed build of a plugin (what a review binds), or a -32602 for a name that is not loaded. */
  const buildOf = (plugin: string): PluginBuildIdentity | undefined => {
    if (plugin === BROWSER_PLUGIN) return undefined
    const found = catalog.plugins().find((p) => p.name === plugin)
    if (!found) throw new RpcError(JsonRpcErrorCode.invalidParams, `no plugin named "${plugin}" is loaded`)
    return found
  }
  const assertTool = (plugin: string, tool: string) => {
    const known =
      plugin === BROWSER_PLUGIN
        ? catalog.browserTools().some((t) => t.name === tool)
        : catalog.plugins().some((p) => p.name === plugin && p.tools.some((t) => t.name === tool))
    if (!known) throw new RpcError(JsonRpcErrorCode.invalidParams, `plugin "${plugin}" has no tool "${tool}"`)
  }
  const changePermissions = async (change: (permissions: PermissionsConfig) => PermissionsConfig) => {
    await deps.updateConfig((config) => ({ ...config, permissions: change(config.permissions) }))
    deps.onChanged()
    return { ok: true }
  }

  return {
    'config.getState': (): Promise<ConfigState> =>
      Promise.resolve({
        plugins: pluginStates(catalog),
        browserTools: browserToolStates(catalog),
        skipPermissions: catalog.skipPermissions(),
        failedPlugins: catalog.failedPlugins(),
      }),
    'config.setToolPermission': async (params) => {
      const { plugin, tool, permission } = params as Params<'config.setToolPermission'>
      const build = buildOf(plugin)
      assertTool(plugin, tool)
      return changePermissions((p) => withToolPermission(p, plugin, tool, permission, build))
    },
    'config.setPluginPermission': async (params) => {
      const { plugin, permission } = params as Params<'config.setPluginPermission'>
      const build = buildOf(plugin)
      return changePermissions((p) => withPluginPermission(p, plugin, permission, build))
    },
    'config.markReviewed': async (params) => {
      const { plugin, version } = params as Params<'config.markReviewed'>
      const build = buildOf(plugin)
      return changePermissions((p) => withReviewedVersion(p, plugin, version, build))
    },
    'config.setSkipPermissions': async (params) => {
      const { enabled } = params as Params<'config.setSkipPermissions'>
      await deps.updateConfig((config) => ({ ...config, skipPermissions: enabled }))
      deps.onChanged()
      return { ok: true }
    },
  }
}
