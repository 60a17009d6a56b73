/**
 * Who a plugin folder is: its package (full name, scope included) and the plugin name that package
 * gives it. A plugin's name is its package's: `bridge-plugin-<name>` or `@<scope>/bridge-plugin-<name>`
 * for an installed package, whose folder under the npm global root must also be that name; a local
 * folder's package.json name (or its `bridge.name`, which the build uses too). What a build's
 * dist/tools.json says is checked against this, never trusted on its own.
 */
import { readFileSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { PLUGIN_NAME_PATTERN, pluginNameFromPackage } from '../protocol/constants'
import type { PluginSource } from '../protocol/manifest'

const PLUGIN_PACKAGE = /^(@[a-z0-9][a-z0-9._~-]*\/)?bridge-plugin-[a-z0-9][a-z0-9._~-]*$/
/** npm's own rules, lowercase: an optional scope, then a name; never an option or a path. */
export const PACKAGE_NAME = /^(@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/

export function isPluginPackageName(name: string): boolean {
  return PLUGIN_PACKAGE.test(name) && name.length <= 214
}

/** The folder's package.json as an object, or undefined when it is missing or not JSON. */
export function readPackageJson(dir: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined
  } catch {
    return undefined
  }
}

export interface PackageIdentity {
  /** Full package name, e.g. `@bridge-mcp/bridge-plugin-notes`. */
  packageName: string
  /** The plugin name the package gives: `notes`. */
  pluginName: string
}

export type IdentityResult = { ok: true; value: PackageIdentity } | { ok: false; error: string }

/** The package a plugin folder holds and the plugin name it may load under. */
export function packageIdentity(dir: string, source: PluginSource): IdentityResult {
  const fail = (error: string): IdentityResult => ({ ok: false, error })
  const pkg = readPackageJson(dir)
  if (!pkg) return fail('package.json is missing or not a JSON object; a plugin folder is an npm package')
  const name = pkg.name
  if (typeof name !== 'string' || !PACKAGE_NAME.test(name) || name.length > 214)
    return fail('package.json has no valid "name"; name the package bridge-plugin-<name>')
  const bridge =
    typeof pkg.bridge === 'object' && pkg.bridge !== null ? (pkg.bridge as Record<string, unknown>) : {}
  const declared = bridge.name
  if (declared !== undefined && (typeof declared !== 'string' || !PLUGIN_NAME_PATTERN.test(declared)))
    return fail(
      'package.json "bridge.name" is not a plugin name (lowercase letters and digits joined by hyphens)',
    )

  if (source === 'npm') {
    // npm installs a package under its own name; a package.json that claims another name is not that package.
    const parent = basename(dirname(dir))
    const folderName = parent.startsWith('@') ? `${parent}/${basename(dir)}` : basename(dir)
    if (name !== folderName)
      return fail(`package.json names the package "${name}", but it is installed as ${folderName}`)
    if (!isPluginPackageName(name))
      return fail(
        `${name} is not a plugin package name (bridge-plugin-<name> or @<scope>/bridge-plugin-<name>)`,
      )
    const pluginName = pluginNameFromPackage(name)
    if (declared !== undefined && declared !== pluginName)
      return fail(
        `package.json "bridge.name" is "${declared}", but the package ${name} is the plugin "${pluginName}"; an installed plugin is named by its package`,
      )
    return { ok: true, value: { packageName: name, pluginName } }
  }
  const pluginName = typeof declared === 'string' ? declared : pluginNameFromPackage(name)
  return { ok: true, value: { packageName: name, pluginName } }
}
