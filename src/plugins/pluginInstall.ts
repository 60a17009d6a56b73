/**
 * Installing, updating and removing plugin packages, for the CLI (`bridge plugin install|remove`) and
 * the side panel (`plugin.*` requests) alike. A package that declares programs (`bin`) is refused
 * before it is downloaded (registry metadata) and again after (the installed package.json). An
 * installed package must load as a plugin before the command succeeds: one that does not is rolled
 * back (the previous version put back, or removed), so a bad package never replaces a working plugin.
 */
import { join } from 'node:path'
import type { Config } from '../config/schema'
import { resolveLocalPluginPath } from '../config/localPlugins'
import { BridgeError, BridgeErrorCode } from '../errors'
import { loadPlugin } from './loadPlugin'
import {
  compareVersions,
  declaredExecutables,
  installedPluginPackages,
  installPackage,
  latestVersion,
  pluginPackageCandidates,
  publishedManifest,
  readPackageJson,
  resolvePluginPackage,
  uninstallPackage,
  type InstalledPackage,
} from './npmPackages'
import { npmGlobalRoot } from './npmRoot'

export interface InstallOutcome {
  packageName: string
  version: string
  /** The plugin's name (its tools are `<plugin>_<tool>`). */
  plugin: string
  /** The version that was installed before, if any. */
  previousVersion?: string
}

export interface PluginUpdate {
  /** Plugin name (or the package name when the installed package does not load). */
  name: string
  packageName: string
  current: string
  latest: string
}

/** `name`: shorthand (`notes`), `bridge-plugin-notes` or `@scope/bridge-plugin-notes`. */
export async function installPlugin(
  name: string,
  env: NodeJS.ProcessEnv,
  /** Told each step as it starts ("Installing @bridge-mcp/bridge-plugin-notes@1.2.0…"), for progress. */
  onStep?: (step: string) => void,
): Promise<InstallOutcome> {
  const { packageName, version } = await resolvePluginPackage(name, env)
  onStep?.(`Installing ${packageName}@${version}…`)
  return installVerified(packageName, version, env)
}

/** Updates an installed plugin package to its latest version; `updated: false` when it already is. */
export async function updatePlugin(
  name: string,
  env: NodeJS.ProcessEnv,
): Promise<InstallOutcome & { updated: boolean }> {
  const installed = await findInstalled(name, env)
  const [pkg] = installed
  if (!pkg) throw notInstalled(name)
  const latest = await latestVersion(pkg.packageName, env)
  if (latest === undefined)
    throw new BridgeError(
      BridgeErrorCode.pluginNotFound,
      `${pkg.packageName} is no longer in the npm registry; it stays installed at ${pkg.version}`,
    )
  if (compareVersions(latest, pkg.version) <= 0)
    return { packageName: pkg.packageName, version: pkg.version, plugin: pkg.plugin ?? name, updated: false }
  return { ...(await installVerified(pkg.packageName, latest, env)), updated: true }
}

/** Installed plugin packages with a newer version in the registry. */
export async function checkPluginUpdates(env: NodeJS.ProcessEnv): Promise<PluginUpdate[]> {
  const installed = await installedPluginPackages(env)
  const checks = await Promise.all(
    installed.map(async (pkg) => ({ pkg, latest: await latestVersion(pkg.packageName, env) })),
  )
  return checks
    .filter(({ pkg, latest }) => latest !== undefined && compareVersions(latest, pkg.version) > 0)
    .map(({ pkg, latest }) => ({
      name: pkg.plugin ?? pkg.packageName,
      packageName: pkg.packageName,
      current: pkg.version,
      latest: latest ?? pkg.version,
    }))
}

export interface RemoveOutcome {
  /** Packages uninstalled from the global npm folder. */
  uninstalled: string[]
  /** localPlugins entries removed from config.json. */
  localRemoved: string[]
}

/**
 * Uninstalls the plugin's global package(s) and removes the localPlugins entries whose folder holds
 * it. `name` is a plugin name or a package name. `updateConfig` writes config.json (the CLI locks the
 * file, the daemon goes through its configStore).
 */
export async function removePlugin(
  name: string,
  opts: {
    env: NodeJS.ProcessEnv
    configDir: string
    config: Pick<Config, 'localPlugins'>
    updateConfig(mutate: (config: Config) => Config): unknown
  },
): Promise<RemoveOutcome> {
  const packages = await findInstalled(name, opts.env)
  const locals = opts.config.localPlugins.filter((entry) =>
    localHolds(resolveLocalPluginPath(entry, opts.configDir), name),
  )
  if (packages.length === 0 && locals.length === 0) throw notInstalled(name)
  for (const pkg of packages) await uninstallPackage(pkg.packageName, opts.env)
  if (locals.length > 0)
    await opts.updateConfig((config) => ({
      ...config,
      localPlugins: config.localPlugins.filter((entry) => !locals.includes(entry)),
    }))
  return { uninstalled: packages.map((p) => p.packageName), localRemoved: locals }
}

async function installVerified(
  packageName: string,
  version: string,
  env: NodeJS.ProcessEnv,
): Promise<InstallOutcome> {
  // A plugin never installs programs: refused before anything is downloaded, on the registry's word.
  const published = declaredExecutables(await publishedManifest(packageName, version, env))
  if (published.length > 0)
    throw new BridgeError(
      BridgeErrorCode.pluginInvalid,
      `${packageName}@${version} ${declaresPrograms(published)}; nothing was installed`,
    )
  const dir = join(await npmGlobalRoot(env), packageName)
  // The version installed now, if any (npm's own record): reported, and put back if the new one fails.
  const previous = readPackageJson(dir)?.version
  const before = typeof previous === 'string' ? previous : undefined
  await installPackage(packageName, version, env)
  // The tarball may say otherwise than the registry's metadata: what landed on disk decides.
  const installed = declaredExecutables(readPackageJson(dir) ?? {})
  const loaded = loadPlugin(dir, 'npm')
  if (installed.length === 0 && loaded.ok)
    return {
      packageName,
      version: loaded.value.plugin.version,
      plugin: loaded.value.plugin.name,
      ...(before ? { previousVersion: before } : {}),
    }
  const problem =
    installed.length > 0
      ? declaresPrograms(installed)
      : `is not a usable bridge plugin: ${loaded.ok ? '' : loaded.error}`
  // Put things back as they were before reporting the problem.
  let rollback = before ? `put ${packageName}@${before} back` : `removed it again`
  try {
    if (before) await installPackage(packageName, before, env)
    else await uninstallPackage(packageName, env)
  } catch (error) {
    rollback = `could not undo the install (${error instanceof Error ? error.message : String(error)})`
  }
  throw new BridgeError(BridgeErrorCode.pluginInvalid, `${packageName}@${version} ${problem}; ${rollback}`)
}

function declaresPrograms(names: readonly string[]): string {
  const shown = names.slice(0, 5).join(', ') + (names.length > 5 ? `, and ${names.length - 5} more` : '')
  return `declares programs to put on PATH (bin: ${shown}); a plugin is built files only and never installs programs`
}

async function findInstalled(name: string, env: NodeJS.ProcessEnv): Promise<InstalledPackage[]> {
  const installed = await installedPluginPackages(env)
  let candidates: string[] = []
  try {
    candidates = pluginPackageCandidates(name)
  } catch {
    // Not a name a package could have: only a plugin name can match.
  }
  return installed.filter((p) => p.plugin === name || candidates.includes(p.packageName))
}

/** Whether the local plugin folder `dir` is the plugin `name` (by its build, or its package name). */
function localHolds(dir: string, name: string): boolean {
  const loaded = loadPlugin(dir, 'local')
  if (loaded.ok && loaded.value.plugin.name === name) return true
  try {
    const packageName = readPackageJson(dir)?.name
    return typeof packageName === 'string' && pluginPackageCandidates(name).includes(packageName)
  } catch {
    return false
  }
}

function notInstalled(name: string): BridgeError {
  return new BridgeError(
    BridgeErrorCode.pluginNotFound,
    `no installed plugin "${name}": neither a global plugin package nor a localPlugins folder; \`bridge plugin list\` shows what is installed`,
  )
}
