/**
 * The side panel's plugin store: `plugin.search`, `plugin.install`, `plugin.updateFromRegistry`,
 * `plugin.remove`, `plugin.removeBySpecifier` and `plugin.checkUpdates`. They run the same code as
 * `bridge plugin search|install|remove` (the user's npm, no install scripts, a package that does not
 * load rolled back), one change at a time, and reload the plugins afterwards so the panel and the MCP
 * tool list see the change at once.
 */
import type { Config } from '../config/schema'
import { BridgeErrorCode, isBridgeError } from '../errors'
import { log } from '../log'
import { isPluginPackageName, searchPlugins } from '../plugins/npmPackages'
import {
  checkPluginUpdates,
  installPlugin,
  removePlugin,
  updatePlugin,
  type InstallOutcome,
} from '../plugins/pluginInstall'
import { JsonRpcErrorCode, type PluginState } from '../protocol'
import { RpcError } from '../rpc/peer'
import type { MethodHandler, MethodHandlers } from './methodHandler'

const logger = log.withTag('plugins')

export interface RegistryMethodsDeps {
  /** Environment for npm (registry, proxy, global prefix come from the user's npm configuration). */
  env: NodeJS.ProcessEnv
  configDir: string
  config(): Pick<Config, 'localPlugins'>
  updateConfig(mutate: (config: Config) => Config): Promise<unknown>
  /** Re-discovers plugins; resolves when a run that started after the call has finished. */
  reload(): Promise<unknown>
  /** The plugin as the extension sees it, once loaded. */
  pluginState(name: string): PluginState | undefined
}

type RegistryMethodName =
  | 'plugin.search'
  | 'plugin.install'
  | 'plugin.updateFromRegistry'
  | 'plugin.remove'
  | 'plugin.removeBySpecifier'
  | 'plugin.checkUpdates'

interface PluginResult {
  ok: boolean
  plugin?: PluginState
}

/**
 * A handler whose bad names answer -32602 (invalid params). Other failures reach the peer as they
 * are: a BridgeError goes out with its message and `data.code` (plugin_not_found, plugin_invalid, …).
 */
const answer =
  <K extends RegistryMethodName>(work: MethodHandler<K>): MethodHandler<K> =>
  async (params) => {
    try {
      return await work(params)
    } catch (error) {
      if (isBridgeError(error, BridgeErrorCode.pluginNameInvalid))
        throw new RpcError(JsonRpcErrorCode.invalidParams, error.message, { code: error.code })
      throw error
    }
  }

/** Runs the work it is given one after another, in call order; a failure does not stop the queue. */
export function oneAtATime(): <T>(work: () => Promise<T>) => Promise<T> {
  let queue: Promise<unknown> = Promise.resolve()
  return (work) => {
    const next = queue.then(work, work)
    queue = next.catch(() => undefined)
    return next
  }
}

export function createRegistryMethods(deps: RegistryMethodsDeps): Pick<MethodHandlers, RegistryMethodName> {
  // Installs, updates and removals run one after another: two npm runs on one global folder at once
  // can leave it half-written, and each reload should see the previous change complete. Lookups
  // (search, update checks) queue separately, so a stream of them cannot start many npm processes.
  const serialized = oneAtATime()
  const lookup = oneAtATime()
  const resultFor = (name: string): PluginResult => {
    const plugin = deps.pluginState(name)
    return plugin ? { ok: true, plugin } : { ok: true }
  }

  const loaded = async (outcome: InstallOutcome, verb: string): Promise<PluginResult> => {
    await deps.reload()
    logger.info(`${verb} ${outcome.packageName}@${outcome.version} from the side panel`)
    const result = resultFor(outcome.plugin)
    if (!result.plugin)
      logger.warn(
        `${outcome.packageName} is installed but did not load (package discovery is off with BRIDGE_SKIP_REGISTRY_DISCOVERY=1, or another plugin has its name)`,
      )
    return result
  }

  const remove = (name: string): Promise<PluginResult> =>
    serialized(async () => {
      const outcome = await removePlugin(name, {
        env: deps.env,
        configDir: deps.configDir,
        config: deps.config(),
        updateConfig: (mutate) => deps.updateConfig(mutate),
      })
      await deps.reload()
      logger.info(
        `removed ${[...outcome.uninstalled, ...outcome.localRemoved.map((e) => `localPlugins entry ${e}`)].join(', ')} from the side panel`,
      )
      return { ok: true }
    })

  return {
    'plugin.search': answer<'plugin.search'>(({ query }) =>
      lookup(async () => ({ results: await searchPlugins(query, deps.env) })),
    ),
    'plugin.install': answer<'plugin.install'>(({ name }) =>
      serialized(async () => loaded(await installPlugin(name, deps.env), 'installed')),
    ),
    'plugin.updateFromRegistry': answer<'plugin.updateFromRegistry'>(({ name }) =>
      serialized(async () => {
        const outcome = await updatePlugin(name, deps.env)
        return outcome.updated ? loaded(outcome, 'updated') : resultFor(outcome.plugin)
      }),
    ),
    'plugin.remove': answer<'plugin.remove'>(({ name }) => remove(name)),
    'plugin.removeBySpecifier': answer<'plugin.removeBySpecifier'>(({ specifier }) => {
      if (!isPluginPackageName(specifier.trim()))
        throw new RpcError(
          JsonRpcErrorCode.invalidParams,
          `"${specifier}" is not a plugin package name (bridge-plugin-<name> or @<scope>/bridge-plugin-<name>)`,
        )
      return remove(specifier.trim())
    }),
    'plugin.checkUpdates': answer<'plugin.checkUpdates'>(() =>
      lookup(async () => ({
        updates: (await checkPluginUpdates(deps.env)).map(({ name, current, latest }) => ({
          name,
          current,
          latest,
        })),
      })),
    ),
  }
}
