/**
 * Plugin discovery: global npm packages (`bridge-plugin-*`, `@<scope>/bridge-plugin-*` under `npm root -g`,
 * skipped with BRIDGE_SKIP_REGISTRY_DISCOVERY=1) and the `localPlugins` folders of config.json. A
 * local plugin overrides a package of the same name (noted in discoveryErrors; the reviewed state binds
 * the package and its adapter, so the override does not inherit the package's review). Two packages
 * that would load under one name are both refused; of two local folders, the first listed keeps it. One broken plugin never stops the others: it
 * lands in `failedPlugins` (or `discoveryErrors` when a whole source failed) with what to fix.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { resolveLocalPluginPath } from '../config/localPlugins'
import type { DiscoveryError, FailedPlugin, PluginSource } from '../protocol/manifest'
import { PLUGIN_PACKAGE_PREFIX } from '../protocol/constants'
import { syncAdapterFiles } from './adapterFiles'
import type { PluginLoadCache } from './loadCache'
import { loadPlugin, type PluginBuild } from './loadPlugin'
import { npmGlobalRoot } from './npmRoot'
import type { PluginRegistrySnapshot } from './types'

export interface DiscoverOptions {
  configDir: string
  /** Only `localPlugins` is read. */
  config: { localPlugins: readonly string[] }
  env: NodeJS.ProcessEnv
  /** Copy adapter bundles to `<config>/extension/adapters` (default true; `bridge plugin list` only reads). */
  syncAdapters?: boolean
  /**
   * Kept by the daemon across reloads: unchanged plugins are reused instead of read, hashed and
   * compiled again, and adapter copies known to be current are not re-read.
   */
  cache?: { plugins: PluginLoadCache; adapterCopies: Map<string, string> }
}

export async function discoverPlugins({
  configDir,
  config,
  env,
  syncAdapters = true,
  cache,
}: DiscoverOptions): Promise<PluginRegistrySnapshot> {
  const failedPlugins: FailedPlugin[] = []
  const discoveryErrors: DiscoveryError[] = []
  const chosen = new Map<string, PluginBuild>()
  const looked = new Set<string>()

  const take = (dirs: string[], source: PluginSource) => {
    const byName = new Map<string, PluginBuild[]>()
    for (const dir of dirs) {
      looked.add(dir)
      const result = cache ? cache.plugins.load(dir, source) : loadPlugin(dir, source)
      if (!result.ok) {
        failedPlugins.push({ path: dir, error: result.error })
        continue
      }
      const { name } = result.value.plugin
      for (const message of result.value.warnings ?? []) discoveryErrors.push({ source, path: dir, message })
      byName.set(name, [...(byName.get(name) ?? []), result.value])
    }
    for (const [name, builds] of byName) {
      if (builds.length > 1 && source === 'npm') {
        // Neither is loaded: whichever won would run under the other's reviewed permissions.
        const who = builds.map((b) => `${b.plugin.packageName} (${b.plugin.path})`).join(' and ')
        for (const b of builds)
          failedPlugins.push({
            path: b.plugin.path,
            error: `the packages ${who} would both load as the plugin "${name}"; neither was loaded, so neither runs under the other's permissions: uninstall one of them`,
          })
        continue
      }
      // Local folders the user listed: the first keeps the name (a review binds its package and
      // adapter hash, so another folder's build does not inherit it), the others are refused.
      for (const extra of builds.slice(1))
        failedPlugins.push({
          path: extra.plugin.path,
          error: `another local plugin already uses the name "${name}" (${builds[0]?.plugin.path ?? ''}); remove or rename one`,
        })
      const build = builds[0]
      if (!build) continue
      const replaced = chosen.get(name)
      if (replaced)
        // Locals are taken after packages, so a local plugin replaces a package of the same name.
        discoveryErrors.push({
          source: 'local',
          path: build.plugin.path,
          message: `the local plugin "${name}" (${build.plugin.packageName}) is used instead of the installed package ${replaced.plugin.packageName}; unless it is the same package and build, it needs a review before its tools run`,
        })
      chosen.set(name, build)
    }
  }

  if (env.BRIDGE_SKIP_REGISTRY_DISCOVERY !== '1') {
    try {
      const root = await npmGlobalRoot(env)
      take(packageDirs(root), 'npm')
    } catch (error) {
      discoveryErrors.push({
        source: 'npm',
        message: `could not list global npm packages (${error instanceof Error ? error.message : String(error)}); package plugins were skipped. Check that npm works, or set BRIDGE_SKIP_REGISTRY_DISCOVERY=1`,
      })
    }
  }
  const localDirs = [...new Set(config.localPlugins.map((entry) => resolveLocalPluginPath(entry, configDir)))]
  take(localDirs, 'local')

  cache?.plugins.retain(looked)
  // By code unit, not localeCompare: the first localeCompare builds an ICU collator (~7 ms of every
  // start), and plugin names ([a-z0-9-]) sort the same either way.
  const plugins = [...chosen.values()]
    .map((b) => b.plugin)
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  if (syncAdapters)
    try {
      syncAdapterFiles(
        configDir,
        new Map(
          [...chosen].map(([name, b]) => [
            name,
            {
              file: b.plugin.adapterFile,
              hash: b.plugin.adapterHash,
              bytes: b.adapter ?? (() => readFileSync(join(b.plugin.path, 'dist', 'adapter.iife.js'))),
            },
          ]),
        ),
        cache?.adapterCopies,
      )
    } catch (error) {
      discoveryErrors.push({
        source: 'config',
        path: configDir,
        message: `could not write adapter files under ${configDir}/extension/adapters (${error instanceof Error ? error.message : String(error)})`,
      })
    }
  return { plugins, failedPlugins, discoveryErrors }
}

/** `<root>/bridge-plugin-*` and `<root>/@<scope>/bridge-plugin-*` folders (symlinks followed: npm link). */
export function packageDirs(root: string): string[] {
  const dirs: string[] = []
  for (const entry of list(root)) {
    if (entry.startsWith('@')) {
      for (const inner of list(join(root, entry)))
        if (inner.startsWith(PLUGIN_PACKAGE_PREFIX) && isDir(join(root, entry, inner)))
          dirs.push(join(root, entry, inner))
    } else if (entry.startsWith(PLUGIN_PACKAGE_PREFIX) && isDir(join(root, entry)))
      dirs.push(join(root, entry))
  }
  return dirs.sort()
}

function list(dir: string): string[] {
  try {
    return readdirSync(dir)
  } catch {
    return []
  }
}

function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory()
  } catch {
    return false
  }
}
