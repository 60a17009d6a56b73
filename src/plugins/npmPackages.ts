/**
 * Plugin packages in the npm registry: search, resolve a name, install, uninstall and check for
 * updates. Everything goes through the user's own `npm`, so the registry, proxies, auth tokens and the
 * global prefix come from their npm configuration, exactly as for `npm install -g`. Packages install
 * with `--ignore-scripts` and `--no-bin-links`: a plugin is built files only and never needs to run
 * code on this machine or put a program on PATH.
 */
import { BridgeError, BridgeErrorCode } from '../errors'
import { PLUGIN_NAME_PATTERN, PLUGIN_PACKAGE_PREFIX } from '../protocol/constants'
import { loadPlugin } from './loadPlugin'
import { npmProblem, runNpm, type NpmRun } from './npm'
import { npmGlobalRoot } from './npmRoot'
import { packageDirs } from './discover'
import { isPluginPackageName, PACKAGE_NAME, readPackageJson } from './packageIdentity'
import { neutralizeText } from '../protocol/untrustedText'

export { isPluginPackageName, readPackageJson }

/** Shorthand names resolve to this scope first (`notes` -> `@bridge-mcp/bridge-plugin-notes`). */
export const OFFICIAL_PLUGIN_SCOPE = '@bridge-mcp'
const NPM_QUERY_TIMEOUT_MS = 30_000
const NPM_INSTALL_TIMEOUT_MS = 5 * 60_000

export interface RegistryPlugin {
  name: string
  version: string
  description: string
  author: string
}

export interface InstalledPackage {
  /** Package name, e.g. `@bridge-mcp/bridge-plugin-notes`. */
  packageName: string
  /** Plugin name from its build (`notes`), or undefined when the package does not load. */
  plugin?: string
  version: string
  dir: string
}

/**
 * The packages `name` may mean, in the order they are tried: a full package name stands for itself;
 * a shorthand (`notes`) is the official scoped package, then the unscoped `bridge-plugin-notes`.
 */
export function pluginPackageCandidates(name: string): string[] {
  const input = name.trim()
  if (input.startsWith('@') || input.startsWith(PLUGIN_PACKAGE_PREFIX)) {
    if (!isPluginPackageName(input))
      throw new BridgeError(
        BridgeErrorCode.pluginNameInvalid,
        `"${name}" is not a plugin package name: plugin packages are named bridge-plugin-<name> or @<scope>/bridge-plugin-<name>`,
      )
    return [input]
  }
  if (!PLUGIN_NAME_PATTERN.test(input) || input.length > 100)
    throw new BridgeError(
      BridgeErrorCode.pluginNameInvalid,
      `"${name}" is not a plugin name: use lowercase letters, digits and single hyphens (e.g. notes), or a full package name`,
    )
  return [`${OFFICIAL_PLUGIN_SCOPE}/${PLUGIN_PACKAGE_PREFIX}${input}`, `${PLUGIN_PACKAGE_PREFIX}${input}`]
}

const isNotFound = (run: NpmRun) => /\bE404\b|404 Not Found|is not in this registry/i.test(run.stderr)
const isUnreachable = (run: NpmRun) =>
  /ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ECONNRESET|network/i.test(run.stderr)

function registryError(action: string, run: NpmRun): BridgeError {
  if (isUnreachable(run))
    return new BridgeError(
      BridgeErrorCode.registryUnreachable,
      `could not reach the npm registry to ${action} (${npmProblem(run)}); check your network and \`npm config get registry\``,
    )
  return new BridgeError(BridgeErrorCode.npmFailed, `npm could not ${action}: ${npmProblem(run)}`)
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '')
function authorOf(v: unknown): string {
  if (typeof v === 'string') return v
  if (typeof v === 'object' && v !== null) {
    const a = v as Record<string, unknown>
    return str(a.name) || str(a.username) || str(a.email)
  }
  return ''
}

/** Registries that leave `version` out of search results still give the `latest` dist-tag. */
const latestTag = (tags: unknown): string =>
  typeof tags === 'object' && tags !== null ? str((tags as Record<string, unknown>).latest) : ''

/**
 * Plugin packages in the registry matching `query` (all plugins when it is empty), sorted by name.
 * Only `bridge-plugin-*` and `@*\/bridge-plugin-*` packages are listed, whatever else matches.
 */
export async function searchPlugins(
  query: string | undefined,
  env: NodeJS.ProcessEnv,
): Promise<RegistryPlugin[]> {
  const words = (query ?? '').trim()
  const text = words === '' ? PLUGIN_PACKAGE_PREFIX : `${PLUGIN_PACKAGE_PREFIX} ${words}`
  const run = await runNpm(['search', '--json', '--searchlimit=250', '--', text], env, NPM_QUERY_TIMEOUT_MS)
  if (run.code !== 0) throw registryError('search for plugins', run)
  const parsed = parseJson(run.stdout)
  if (!Array.isArray(parsed))
    throw new BridgeError(BridgeErrorCode.npmFailed, 'npm search printed no result list')
  const needle = words.toLowerCase()
  const results: RegistryPlugin[] = []
  for (const item of parsed as Array<Record<string, unknown>>) {
    const name = str(item.name)
    if (!isPluginPackageName(name)) continue
    const description = str(item.description)
    const keywords = Array.isArray(item.keywords) ? item.keywords.map(str).join(' ') : ''
    if (needle !== '' && !`${name} ${description} ${keywords}`.toLowerCase().includes(needle)) continue
    results.push({
      name,
      version: str(item.version) || latestTag(item['dist-tags']),
      description,
      author:
        authorOf(item.author) || authorOf(Array.isArray(item.maintainers) ? item.maintainers[0] : undefined),
    })
  }
  return results.sort((a, b) => a.name.localeCompare(b.name))
}

/** The latest published version of `packageName`, or undefined when the registry has no such package. */
export async function latestVersion(
  packageName: string,
  env: NodeJS.ProcessEnv,
): Promise<string | undefined> {
  if (!PACKAGE_NAME.test(packageName)) return undefined
  const run = await runNpm(['view', '--json', '--', packageName, 'version'], env, NPM_QUERY_TIMEOUT_MS)
  if (run.code !== 0) {
    if (isNotFound(run)) return undefined
    throw registryError(`look up ${packageName}`, run)
  }
  const parsed = parseJson(run.stdout)
  const version: unknown = Array.isArray(parsed) ? (parsed as unknown[]).at(-1) : parsed
  return typeof version === 'string' ? version : undefined
}

/** The first of `pluginPackageCandidates(name)` that the registry has, with its latest version. */
export async function resolvePluginPackage(
  name: string,
  env: NodeJS.ProcessEnv,
): Promise<{ packageName: string; version: string }> {
  const candidates = pluginPackageCandidates(name)
  for (const packageName of candidates) {
    const version = await latestVersion(packageName, env)
    if (version !== undefined) return { packageName, version }
  }
  throw new BridgeError(
    BridgeErrorCode.pluginNotFound,
    `no plugin package ${candidates.join(' or ')} in the npm registry; \`bridge plugin search\` lists the plugins there`,
  )
}

/**
 * Installs (or updates) `packageName@version` into the global npm folder, without install scripts and,
 * unless `binLinks` (only `bridge update`, whose package is this CLI), without linking any program
 * onto PATH.
 */
export async function installPackage(
  packageName: string,
  version: string,
  env: NodeJS.ProcessEnv,
  options: { binLinks?: boolean } = {},
): Promise<void> {
  if (!PACKAGE_NAME.test(packageName))
    throw new BridgeError(BridgeErrorCode.pluginNameInvalid, `"${packageName}" is not a package name`)
  const run = await runNpm(
    [
      'install',
      '--global',
      '--ignore-scripts',
      ...(options.binLinks ? [] : ['--no-bin-links']),
      '--no-audit',
      '--no-fund',
      '--',
      `${packageName}@${version}`,
    ],
    env,
    NPM_INSTALL_TIMEOUT_MS,
  )
  if (run.code !== 0) throw registryError(`install ${packageName}@${version}`, run)
}

/** The registry's package.json of one published version (`npm view --json <name>@<version>`). */
export async function publishedManifest(
  packageName: string,
  version: string,
  env: NodeJS.ProcessEnv,
): Promise<Record<string, unknown>> {
  if (!PACKAGE_NAME.test(packageName))
    throw new BridgeError(BridgeErrorCode.pluginNameInvalid, `"${packageName}" is not a package name`)
  const run = await runNpm(['view', '--json', '--', `${packageName}@${version}`], env, NPM_QUERY_TIMEOUT_MS)
  if (run.code !== 0) throw registryError(`look up ${packageName}@${version}`, run)
  const parsed = parseJson(run.stdout)
  const manifest: unknown = Array.isArray(parsed) ? (parsed as unknown[]).at(-1) : parsed
  if (typeof manifest !== 'object' || manifest === null)
    throw new BridgeError(BridgeErrorCode.npmFailed, `npm view printed nothing for ${packageName}@${version}`)
  return manifest as Record<string, unknown>
}

/**
 * The programs a package.json (or the registry's copy of it) asks npm to put on PATH: its `bin`
 * entries and a `directories.bin` folder. Names are neutralized for printing.
 */
export function declaredExecutables(pkg: Record<string, unknown>): string[] {
  const names: string[] = []
  const bin = pkg.bin
  if (typeof bin === 'string' && bin !== '') names.push(str(pkg.name).split('/').pop() || 'bin')
  else if (typeof bin === 'object' && bin !== null) names.push(...Object.keys(bin))
  const directories = pkg.directories
  if (typeof directories === 'object' && directories !== null && 'bin' in directories)
    names.push('directories.bin')
  return names.map((n) => neutralizeText(n, 60))
}

export async function uninstallPackage(packageName: string, env: NodeJS.ProcessEnv): Promise<void> {
  if (!PACKAGE_NAME.test(packageName))
    throw new BridgeError(BridgeErrorCode.pluginNameInvalid, `"${packageName}" is not a package name`)
  const run = await runNpm(['uninstall', '--global', '--', packageName], env, NPM_INSTALL_TIMEOUT_MS)
  if (run.code !== 0) throw registryError(`uninstall ${packageName}`, run)
}

/** Plugin packages in the global npm folder, whether or not they load. */
export async function installedPluginPackages(env: NodeJS.ProcessEnv): Promise<InstalledPackage[]> {
  const root = await npmGlobalRoot(env)
  const out: InstalledPackage[] = []
  for (const dir of packageDirs(root)) {
    const pkg = readPackageJson(dir)
    const packageName = str(pkg?.name)
    if (!isPluginPackageName(packageName)) continue
    const loaded = loadPlugin(dir, 'npm')
    out.push({
      packageName,
      version: loaded.ok ? loaded.value.plugin.version : str(pkg?.version),
      dir,
      ...(loaded.ok ? { plugin: loaded.value.plugin.name } : {}),
    })
  }
  return out
}

/**
 * Compares versions by the semver rules: the dotted release numerically, then a pre-release sorts
 * before its release, and pre-releases compare identifier by identifier (numbers numerically and before
 * words, a shorter list first): `1.0.0-beta.9` < `1.0.0-beta.10` < `1.0.0-rc.1` < `1.0.0`. Build
 * metadata (`+…`) is ignored. A version that is not dotted numbers compares as text.
 */
export function compareVersions(a: string, b: string): number {
  const [mainA, preA] = splitVersion(a)
  const [mainB, preB] = splitVersion(b)
  const pa = mainA.split('.').map(Number)
  const pb = mainB.split('.').map(Number)
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0)
    if (Number.isNaN(d)) return Math.sign(a.localeCompare(b))
    if (d !== 0) return Math.sign(d)
  }
  if (preA === preB) return 0
  if (preA === undefined) return 1
  if (preB === undefined) return -1
  const ia = preA.split('.')
  const ib = preB.split('.')
  for (let i = 0; i < Math.max(ia.length, ib.length); i++) {
    const x = ia[i]
    const y = ib[i]
    if (x === undefined) return -1
    if (y === undefined) return 1
    const order = comparePreReleaseIdentifier(x, y)
    if (order !== 0) return order
  }
  return 0
}

/** `[release, pre-release?]`, build metadata dropped; only the first `-` starts the pre-release. */
function splitVersion(version: string): [string, string | undefined] {
  const withoutBuild = version.split('+', 1)[0] ?? ''
  const dash = withoutBuild.indexOf('-')
  return dash === -1 ? [withoutBuild, undefined] : [withoutBuild.slice(0, dash), withoutBuild.slice(dash + 1)]
}

function comparePreReleaseIdentifier(x: string, y: string): number {
  const numeric = /^\d+$/
  if (numeric.test(x) && numeric.test(y)) return Math.sign(Number(x) - Number(y))
  if (numeric.test(x)) return -1
  if (numeric.test(y)) return 1
  return x < y ? -1 : x > y ? 1 : 0
}
