/**
 * `bridge config set <key> [value] [-f|--force]`. Keys:
 *   tool-permission.<plugin>.<tool> off|ask|auto    plugin-permission.<plugin> off|ask|auto
 *   port <1-65535>    localPlugins.add <path>    localPlugins.remove <path>
 *   uploadFolders.add <folder>    uploadFolders.remove <folder>
 *   browser-groups.add <group|all>    browser-groups.remove <group|all>
 * The file is written atomically with the same module the daemon uses; a running daemon is then
 * asked to re-read it (`POST /reload`), so the change takes effect at once. The daemon re-reads
 * config.json before each of its own writes, so a later side-panel change does not undo this one.
 */
import { existsSync, statSync } from 'node:fs'
import { homedir } from 'node:os'
import { isAbsolute, join, resolve } from 'node:path'
import { ensurePrivateDir } from '../../../src/config/atomicWrite'
import { readConfigFile, updateConfigFile } from '../../../src/config/configFile'
import { resolveLocalPluginPath } from '../../../src/config/localPlugins'
import { checkPort } from '../../../src/config/port'
import { resolveUploadFolder } from '../../../src/config/uploadFolders'
import {
  withBrowserGroup,
  withPluginPermission,
  withToolPermission,
  type PluginBuildIdentity,
} from '../../../src/config/permissions'
import { BROWSER_TOOL_GROUP_NAMES } from '../../../src/tools'
import type { Config, FlowGuardMode } from '../../../src/config/schema'
import { clientNameProblem } from '../../../src/config/clients'
import type { HealthPayload } from '../../../src/http/health'
import { discoverPlugins } from '../../../src/plugins/discover'
import { BROWSER_PLUGIN, PLUGIN_NAME_PATTERN } from '../../../src/protocol/constants'
import type { Permission } from '../../../src/protocol'
import { splitToolName } from '../../../src/protocol/toolNames'
import { fail, say } from '../../shared/output'
import { runningConfigContext, rereadByDaemon, runningDaemon, type ConfigFlags } from './context'

const PERMISSIONS: readonly string[] = ['off', 'ask', 'auto']
const FLOW_GUARD_MODES: readonly string[] = ['ask', 'block', 'off']

/**
 * `flow-guard ask|block|off` for every client, `flow-guard.<client> ask|block|off` for one
 * (`flow-guard.<client> default` drops the client's own setting).
 */
function flowGuardChange(client: string | undefined, value: string | undefined): Change {
  if (client !== undefined) {
    const problem = clientNameProblem(client)
    if (problem) return { ok: false, message: problem }
  }
  const allowed = client === undefined ? FLOW_GUARD_MODES : [...FLOW_GUARD_MODES, 'default']
  if (value === undefined || !allowed.includes(value))
    return { ok: false, message: `flow-guard${client ? `.${client}` : ''} takes ${allowed.join(', ')}` }
  const mode = value as FlowGuardMode
  return {
    ok: true,
    describe: `flow-guard${client ? `.${client}` : ''} = ${value}`,
    apply: (config) => {
      const current = config.flowGuard ?? {}
      if (client === undefined) return { ...config, flowGuard: { ...current, mode } }
      const { [client]: _dropped, ...others } = current.clients ?? {}
      const clients = value === 'default' ? others : { ...others, [client]: mode }
      return { ...config, flowGuard: { ...current, clients } }
    },
  }
}
const KEYS_HELP =
  'keys: flow-guard, flow-guard.<client>, tool-permission.<plugin>.<tool>, plugin-permission.<plugin>, port, localPlugins.add, localPlugins.remove, uploadFolders.add, uploadFolders.remove, browser-groups.add, browser-groups.remove'

type Change =
  { ok: true; apply: (config: Config) => Config; describe: string } | { ok: false; message: string }

export async function setConfig(
  key: string | undefined,
  value: string | undefined,
  flags: ConfigFlags,
): Promise<void> {
  if (key === undefined) return fail(`config set needs a key (${KEYS_HELP})`)
  const context = await runningConfigContext(flags)
  const { paths } = context
  const daemon = await runningDaemon(context)
  const builds = /^(tool|plugin)-permission\./.test(key)
    ? await pluginBuilds(daemon, paths.dir, paths.configFile)
    : new Map<string, PluginBuildIdentity>()
  const change = parseChange(key, value, flags, daemon, builds, paths.dir)
  if (!change.ok) return fail(change.message)

  ensurePrivateDir(paths.dir)
  const { written } = updateConfigFile(paths.configFile, change.apply)
  if (!written) {
    say(`unchanged: ${change.describe} was already set`)
    return
  }
  say(`${change.describe} (written to ${paths.configFile})`)
  if (key === 'port')
    say('the port is used by the next `bridge start` and by the CLI; a running daemon keeps its port')
  await rereadByDaemon(context, daemon)
}

/**
 * Each plugin's installed build (package, version, adapter hash), which setting ask or auto marks as
 * reviewed: what the running daemon has loaded, or without one, what discovery finds (config.json's
 * localPlugins, npm packages).
 */
async function pluginBuilds(
  daemon: HealthPayload | null,
  configDir: string,
  configFile: string,
): Promise<Map<string, PluginBuildIdentity>> {
  const build = (p: PluginBuildIdentity & { name: string }): [string, PluginBuildIdentity] => [
    p.name,
    {
      packageName: p.packageName,
      version: p.version,
      adapterHash: p.adapterHash,
      ...(p.source === undefined ? {} : { source: p.source }),
      ...(p.path === undefined ? {} : { path: p.path }),
    },
  ]
  if (daemon) return new Map(daemon.pluginDetails.map(build))
  try {
    const config = existsSync(configFile) ? readConfigFile(configFile) : { localPlugins: [] }
    const found = await discoverPlugins({ configDir, config, env: process.env, syncAdapters: false })
    return new Map(found.plugins.map(build))
  } catch {
    // A broken config.json is reported when the change is written.
    return new Map()
  }
}

function parseChange(
  key: string,
  value: string | undefined,
  flags: ConfigFlags,
  daemon: HealthPayload | null,
  builds: ReadonlyMap<string, PluginBuildIdentity>,
  configDir: string,
): Change {
  const parts = key.split('.')
  if (parts[0] === 'tool-permission' && parts.length === 3) {
    const [, plugin = '', tool = ''] = parts
    const problem =
      checkPlugin(plugin, true) ??
      checkInstalled(plugin, builds, daemon, flags) ??
      checkPermission(value) ??
      checkTool(plugin, tool, daemon)
    if (problem) return { ok: false, message: problem }
    const permission = value as Permission
    return {
      ok: true,
      describe: `tool-permission.${plugin}.${tool} = ${permission}`,
      apply: (config) => ({
        ...config,
        permissions: withToolPermission(config.permissions, plugin, tool, permission, builds.get(plugin)),
      }),
    }
  }
  if (parts[0] === 'plugin-permission' && parts.length === 2) {
    const plugin = parts[1] ?? ''
    const problem =
      checkPlugin(plugin, true) ?? checkInstalled(plugin, builds, daemon, flags) ?? checkPermission(value)
    if (problem) return { ok: false, message: problem }
    const permission = value as Permission
    return {
      ok: true,
      describe: `plugin-permission.${plugin} = ${permission}`,
      apply: (config) => ({
        ...config,
        permissions: withPluginPermission(config.permissions, plugin, permission, builds.get(plugin)),
      }),
    }
  }
  if (key === 'port') {
    if (value === undefined) return { ok: false, message: 'port needs a value (1-65535)' }
    const checked = checkPort(value)
    if (!checked.ok) return { ok: false, message: checked.message }
    const port = checked.value
    return { ok: true, describe: `port = ${port}`, apply: (config) => ({ ...config, port }) }
  }
  if (key === 'localPlugins.add') {
    if (!value) return { ok: false, message: 'localPlugins.add needs a path' }
    const dir = absolutePath(value)
    if (!existsSync(dir) && !flags.force)
      return {
        ok: false,
        message: `${dir} does not exist (use --force to add a path that is not on disk yet)`,
      }
    return {
      ok: true,
      describe: `localPlugins += ${dir}`,
      apply: (config) =>
        config.localPlugins.some((entry) => resolveLocalPluginPath(entry, configDir) === dir)
          ? config
          : { ...config, localPlugins: [...config.localPlugins, dir] },
    }
  }
  if (key === 'localPlugins.remove') {
    if (!value) return { ok: false, message: 'localPlugins.remove needs a path' }
    const dir = absolutePath(value)
    const matches = (entry: string) => entry === value || resolveLocalPluginPath(entry, configDir) === dir
    return {
      ok: true,
      describe: `localPlugins -= ${dir}`,
      apply: (config) => {
        if (!config.localPlugins.some(matches))
          throw new Error(`${dir} is not in localPlugins (${config.localPlugins.join(', ') || 'empty'})`)
        return { ...config, localPlugins: config.localPlugins.filter((entry) => !matches(entry)) }
      },
    }
  }
  if (parts[0] === 'flow-guard' && parts.length <= 2) return flowGuardChange(parts[1], value)
  if (key === 'uploadFolders.add' || key === 'uploadFolders.remove') return uploadFolderChange(key, value)
  if (key === 'browser-groups.add' || key === 'browser-groups.remove') return browserGroupChange(key, value)
  return { ok: false, message: `unknown key "${key}" (${KEYS_HELP})` }
}

/** A group of built-in tools beyond `core` that the `browser` default permission reaches (or `all`). */
function browserGroupChange(
  key: 'browser-groups.add' | 'browser-groups.remove',
  value: string | undefined,
): Change {
  const names = [...BROWSER_TOOL_GROUP_NAMES, 'all']
  if (!value || !names.includes(value))
    return { ok: false, message: `${key} needs a group: ${names.join(', ')} (got "${value ?? ''}")` }
  const add = key === 'browser-groups.add'
  return {
    ok: true,
    describe: `browser-groups ${add ? '+=' : '-='} ${value}`,
    apply: (config) => ({ ...config, permissions: withBrowserGroup(config.permissions, value, add) }),
  }
}

/** The folders whose files agents may upload by path: added as absolute paths of existing folders. */
function uploadFolderChange(
  key: 'uploadFolders.add' | 'uploadFolders.remove',
  value: string | undefined,
): Change {
  if (!value) return { ok: false, message: `${key} needs a folder` }
  const dir = absolutePath(value)
  const listed = (config: Config) => config.uploadFolders ?? []
  if (key === 'uploadFolders.add') {
    if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory())
      return { ok: false, message: `${dir} is not a folder` }
    return {
      ok: true,
      describe: `uploadFolders += ${dir} (agents may upload any file in it)`,
      apply: (config) =>
        listed(config).some((entry) => resolveUploadFolder(entry) === dir)
          ? config
          : { ...config, uploadFolders: [...listed(config), dir] },
    }
  }
  const matches = (entry: string) => entry === value || resolveUploadFolder(entry) === dir
  return {
    ok: true,
    describe: `uploadFolders -= ${dir}`,
    apply: (config) => {
      if (!listed(config).some(matches))
        throw new Error(`${dir} is not in uploadFolders (${listed(config).join(', ') || 'empty'})`)
      return { ...config, uploadFolders: listed(config).filter((entry) => !matches(entry)) }
    },
  }
}

function checkPlugin(plugin: string, allowBrowser: boolean): string | undefined {
  if (allowBrowser && plugin === BROWSER_PLUGIN) return undefined
  if (!PLUGIN_NAME_PATTERN.test(plugin))
    return `"${plugin}" is not a plugin name (lowercase letters and digits in hyphen-separated parts, or "browser")`
  return undefined
}

/**
 * A permission for a plugin nobody has installed is a typo more often than a plan: refused, naming the
 * plugins there are, unless --force (set it before installing the plugin).
 */
function checkInstalled(
  plugin: string,
  builds: ReadonlyMap<string, PluginBuildIdentity>,
  daemon: HealthPayload | null,
  flags: ConfigFlags,
): string | undefined {
  if (plugin === BROWSER_PLUGIN || builds.has(plugin) || flags.force) return undefined
  const names = [...builds.keys()].sort()
  const where = daemon ? 'the running daemon has' : 'installed and local plugins are'
  return `there is no plugin "${plugin}" (${where}: ${names.join(', ') || 'none'}); use --force to set it before the plugin is installed`
}

function checkPermission(value: string | undefined): string | undefined {
  if (value !== undefined && PERMISSIONS.includes(value)) return undefined
  return `permission must be off, ask or auto (got "${value ?? ''}")`
}

/** With a daemon running, a tool name is checked against the tools it knows. */
function checkTool(plugin: string, tool: string, daemon: HealthPayload | null): string | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(tool)) return `"${tool}" is not a tool name`
  if (daemon === null) return undefined
  const known =
    plugin === BROWSER_PLUGIN
      ? daemon.browserToolNames
      : daemon.pluginDetails
          .find((p) => p.name === plugin)
          ?.tools.map((name) => splitToolName(name)?.tool ?? name)
  if (known === undefined || known.includes(tool)) return undefined
  return `${plugin} has no tool "${tool}" (tools: ${known.join(', ')})`
}

function absolutePath(path: string): string {
  if (path === '~') return homedir()
  if (path.startsWith('~/')) return join(homedir(), path.slice(2))
  return isAbsolute(path) ? resolve(path) : resolve(process.cwd(), path)
}
