/**
 * Builds `dist/tools.json` (PluginManifest) from the package metadata and the loaded definition.
 */
import { readFileSync } from 'node:fs'
import type { PluginManifest, ToolManifest } from '../protocol/manifest'
import { SDK_VERSION } from '../protocol/constants'
import type { PluginDefinition } from '../sdk/types'
import { iconSvgProblem } from '../plugins/iconSvg'
import { compileValidators } from '../validation'
import { PluginBuildError } from './errors'
import type { PluginPackage } from './readPackage'
import { serializeSchema } from './serializeSchema'

export function createManifest(pkg: PluginPackage, plugin: PluginDefinition): PluginManifest {
  const tools: ToolManifest[] = plugin.tools.map((tool) => {
    const input = serializeSchema(tool.input, `tool "${tool.name}" input`)
    if (!input.ok) throw new PluginBuildError(input.message)
    let outputSchema: Record<string, unknown> | undefined
    if (tool.output !== undefined) {
      const output = serializeSchema(tool.output, `tool "${tool.name}" output`)
      if (!output.ok) throw new PluginBuildError(output.message)
      outputSchema = output.value
    }
    return {
      name: tool.name,
      displayName: tool.displayName ?? humanize(tool.name),
      description: tool.description.trim(),
      inputSchema: input.value,
      ...(outputSchema ? { outputSchema } : {}),
      ...(tool.annotations && Object.keys(tool.annotations).length > 0
        ? { annotations: { ...tool.annotations } }
        : {}),
    }
  })
  // The daemon compiles input schemas with ajv in strict mode; fail here rather than at discovery.
  const compiled = compileValidators(tools, { eager: true })
  if (!compiled.ok)
    throw new PluginBuildError(
      `${compiled.message} (the daemon validates inputs with strict JSON Schema; remove or rename the option)`,
    )
  return {
    name: pkg.name,
    version: pkg.version,
    sdkVersion: SDK_VERSION,
    displayName: pkg.displayName,
    urlPatterns: pkg.urlPatterns,
    ...(pkg.icon ? { iconSvg: readIcon(pkg.icon) } : {}),
    tools,
  }
}

/** `list_notes` -> `List notes`. */
export function humanize(toolName: string): string {
  const words = toolName.replaceAll('_', ' ')
  return words.charAt(0).toUpperCase() + words.slice(1)
}

function readIcon(path: string): string {
  const svg = readFileSync(path, 'utf8').trim()
  const problem = iconSvgProblem(svg)
  if (problem) throw new PluginBuildError(`${path}: ${problem}`)
  return svg
}
