/**
 * Loads one plugin folder's build: `dist/tools.json` checked against PluginManifest and the name
 * rules, `dist/adapter.iife.js` read and hashed, input validators compiled. Every failure is a
 * message that tells the user what to fix; nothing here throws.
 */
import { createHash } from 'node:crypto'
import { existsSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import {
  PLUGIN_NAME_PATTERN,
  RESERVED_PLUGIN_NAMES,
  SDK_VERSION,
  TOOL_NAME_PATTERN,
} from '../protocol/constants'
import type { PluginManifest } from '../protocol/manifest'
import { type PluginSource } from '../protocol/manifest'
import { iconSvgProblem } from './iconSvg'
import { checkManifestShape } from './manifestShape'
import { packageIdentity } from './packageIdentity'
import { compileValidators } from '../validation'
import type { LoadedPlugin } from './types'

export const ADAPTER_MAX_BYTES = 5 * 1024 * 1024
export const MANIFEST_MAX_BYTES = 1024 * 1024

export interface PluginBuild {
  plugin: LoadedPlugin
  /** The adapter bundle's bytes; absent when the plugin was reused unchanged (see loadCache.ts). */
  adapter?: Buffer
  /** What was dropped while loading (a refused icon), for discoveryErrors. */
  warnings?: string[]
}

export type LoadResult = { ok: true; value: PluginBuild } | { ok: false; error: string }

export function loadPlugin(dir: string, source: PluginSource): LoadResult {
  const fail = (error: string): LoadResult => ({ ok: false, error })
  const rebuild =
    source === 'local' ? `run "bridge-plugin build" in ${dir}` : 'reinstall or update the package'
  if (!existsSync(dir)) return fail(`folder does not exist; remove it from localPlugins or restore it`)
  if (!statSync(dir).isDirectory()) return fail('not a folder; localPlugins lists plugin folders')
  const toolsFile = join(dir, 'dist', 'tools.json')
  const adapterPath = join(dir, 'dist', 'adapter.iife.js')
  if (!existsSync(toolsFile)) return fail(`not built: dist/tools.json is missing; ${rebuild}`)
  if (!existsSync(adapterPath)) return fail(`not built: dist/adapter.iife.js is missing; ${rebuild}`)

  if (statSync(toolsFile).size > MANIFEST_MAX_BYTES)
    return fail(`dist/tools.json is larger than ${MANIFEST_MAX_BYTES / 1024 / 1024} MB; ${rebuild}`)
  let raw: unknown
  try {
    raw = JSON.parse(readFileSync(toolsFile, 'utf8'))
  } catch (error) {
    return fail(
      `dist/tools.json is not valid JSON (${error instanceof Error ? error.message : String(error)}); ${rebuild}`,
    )
  }
  const shape = checkManifestShape(raw)
  if (!shape.ok) return fail(`dist/tools.json ${shape.message}; ${rebuild}`)
  const manifest: PluginManifest = shape.value

  if (!PLUGIN_NAME_PATTERN.test(manifest.name))
    return fail(
      `plugin name "${manifest.name}" is invalid (lowercase letters and digits joined by single hyphens)`,
    )
  if (RESERVED_PLUGIN_NAMES.includes(manifest.name))
    return fail(`plugin name "${manifest.name}" is reserved; rename the plugin`)
  // A plugin's name is its package's: a build that names another plugin must not take that one's place.
  const identity = packageIdentity(dir, source)
  if (!identity.ok) return fail(identity.error)
  const { packageName, pluginName } = identity.value
  if (manifest.name !== pluginName)
    return fail(
      `dist/tools.json names the plugin "${manifest.name}", but the package ${packageName} is the plugin "${pluginName}"; a plugin's name is its package's, so it was not loaded`,
    )
  const major = (v: string) => v.split('.')[0]
  if (manifest.sdkVersion !== null && major(manifest.sdkVersion) !== major(SDK_VERSION))
    return fail(`built with SDK ${manifest.sdkVersion}, but this bridge runs SDK ${SDK_VERSION}; ${rebuild}`)
  const names = new Set<string>()
  for (const tool of manifest.tools) {
    if (!TOOL_NAME_PATTERN.test(tool.name))
      return fail(
        `tool name "${tool.name}" is invalid (lowercase words joined by underscores, e.g. list_notes)`,
      )
    if (names.has(tool.name)) return fail(`two tools are named "${tool.name}"`)
    names.add(tool.name)
  }
  // A refused icon is dropped, not the plugin: the panel shows a placeholder and discovery says why.
  const warnings: string[] = []
  const iconProblem = manifest.iconSvg === undefined ? undefined : iconSvgProblem(manifest.iconSvg)
  if (iconProblem)
    warnings.push(
      `the icon of plugin "${manifest.name}" was dropped: ${iconProblem}; fix the icon and ${rebuild}`,
    )
  const iconSvg = iconProblem ? undefined : manifest.iconSvg

  const size = statSync(adapterPath).size
  if (size > ADAPTER_MAX_BYTES)
    return fail(`dist/adapter.iife.js is larger than ${ADAPTER_MAX_BYTES / 1024 / 1024} MB`)
  const adapter = readFileSync(adapterPath)
  const validators = compileValidators(manifest.tools)
  if (!validators.ok) return fail(`${validators.message}; fix the schema and ${rebuild}`)

  return {
    ok: true,
    value: {
      adapter,
      warnings,
      plugin: {
        name: manifest.name,
        packageName,
        displayName: manifest.displayName,
        version: manifest.version,
        source,
        path: dir,
        sdkVersion: manifest.sdkVersion,
        urlPatterns: manifest.urlPatterns,
        ...(iconSvg !== undefined ? { iconSvg } : {}),
        tools: manifest.tools,
        adapterFile: `${manifest.name}.js`,
        adapterHash: createHash('sha256').update(adapter).digest('hex'),
        validate: validators.value,
      },
    },
  }
}
