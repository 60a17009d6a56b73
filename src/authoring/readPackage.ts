/**
 * Reads a plugin's package.json: name, version and the `bridge` field, with every rule of SPEC
 * "Plugin package layout" checked and a message that says what to fix.
 */
import { existsSync, readFileSync } from 'node:fs'
import { isAbsolute, join, relative, resolve } from 'node:path'
import { PLUGIN_NAME_PATTERN, pluginNameFromPackage, RESERVED_PLUGIN_NAMES } from '../protocol/constants'
import { parseMatchPattern } from '../sdk/matchPattern'
import { jsonProblem } from '../jsonProblem'
import { PluginBuildError } from './errors'

export interface PluginPackage {
  dir: string
  packageName: string
  /** Plugin name: `bridge.name`, else the package name without scope and `bridge-plugin-`. */
  name: string
  version: string
  displayName: string
  urlPatterns: string[]
  /** Absolute path of the entry file. */
  entry: string
  /** Absolute path of the icon SVG, when `bridge.icon` is set. */
  icon?: string
}

/** Why `name` cannot be a plugin name, or undefined when it can. */
export function pluginNameProblem(name: string): string | undefined {
  if (!PLUGIN_NAME_PATTERN.test(name))
    return `plugin name "${name}" must be lowercase letters and digits in segments joined by single hyphens (e.g. "my-site")`
  if (RESERVED_PLUGIN_NAMES.includes(name))
    return `plugin name "${name}" is reserved (reserved: ${RESERVED_PLUGIN_NAMES.join(', ')}); choose another`
  return undefined
}

export function readPluginPackage(dir: string): PluginPackage {
  const file = join(dir, 'package.json')
  if (!existsSync(file))
    throw new PluginBuildError(`no package.json in ${dir}; run bridge-plugin in the plugin's folder`)
  let pkg: Record<string, unknown>
  const text = readFileSync(file, 'utf8')
  try {
    const parsed: unknown = JSON.parse(text)
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw new Error('not a JSON object')
    pkg = parsed as Record<string, unknown>
  } catch (error) {
    throw new PluginBuildError(`${file} is not valid JSON: ${jsonProblem(text, error)}`)
  }
  const at = (field: string, why: string) => new PluginBuildError(`${file}: "${field}" ${why}`)

  if (typeof pkg.name !== 'string' || pkg.name === '')
    throw at('name', 'is missing; name the package bridge-plugin-<name>')
  if (typeof pkg.version !== 'string' || pkg.version === '') throw at('version', 'is missing (e.g. "0.1.0")')
  const bridge = pkg.bridge
  if (typeof bridge !== 'object' || bridge === null || Array.isArray(bridge))
    throw at('bridge', 'is missing; add { "displayName": "...", "urlPatterns": ["https://example.com/*"] }')
  const b = bridge as Record<string, unknown>

  if (b.name !== undefined && typeof b.name !== 'string') throw at('bridge.name', 'must be a string')
  const name = typeof b.name === 'string' ? b.name : pluginNameFromPackage(pkg.name)
  const nameProblem = pluginNameProblem(name)
  if (nameProblem) throw new PluginBuildError(`${file}: ${nameProblem}`)

  if (typeof b.displayName !== 'string' || b.displayName.trim() === '')
    throw at('bridge.displayName', 'is missing; it is the name users see in the side panel')
  if (!Array.isArray(b.urlPatterns) || b.urlPatterns.length === 0)
    throw at(
      'bridge.urlPatterns',
      'must be a non-empty array of match patterns (e.g. ["https://example.com/*"])',
    )
  const urlPatterns: string[] = []
  for (const pattern of b.urlPatterns as unknown[]) {
    if (typeof pattern !== 'string') throw at('bridge.urlPatterns', 'must contain only strings')
    const parsed = parseMatchPattern(pattern)
    if (!parsed.ok) throw new PluginBuildError(`${file}: bridge.urlPatterns: ${parsed.message}`)
    urlPatterns.push(pattern)
  }

  const entry = inside(dir, b.entry, 'src/index.ts', file, 'bridge.entry')
  if (!existsSync(entry))
    throw new PluginBuildError(
      `entry file ${relative(dir, entry) || entry} not found; create it or set "bridge.entry" in package.json`,
    )
  let icon: string | undefined
  if (b.icon !== undefined) {
    icon = inside(dir, b.icon, undefined, file, 'bridge.icon')
    if (!existsSync(icon))
      throw new PluginBuildError(`${file}: bridge.icon file ${relative(dir, icon)} not found`)
  }
  return {
    dir,
    packageName: pkg.name,
    name,
    version: pkg.version,
    displayName: b.displayName,
    urlPatterns,
    entry,
    ...(icon ? { icon } : {}),
  }
}

/** Resolves a package-relative path and refuses one that leaves the package folder. */
function inside(
  dir: string,
  value: unknown,
  fallback: string | undefined,
  file: string,
  field: string,
): string {
  const raw = value ?? fallback
  if (typeof raw !== 'string' || raw === '')
    throw new PluginBuildError(`${file}: "${field}" must be a relative file path`)
  const full = resolve(dir, raw)
  const rel = relative(dir, full)
  if (rel.startsWith('..') || isAbsolute(rel))
    throw new PluginBuildError(`${file}: "${field}" must point inside the plugin folder (got ${raw})`)
  return full
}
