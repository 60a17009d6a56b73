/**
 * `bridge-plugin inspect`: reads the built dist/tools.json and describes it for a human: plugin name,
 * version, SDK version, tool count, and per tool its display name, description, input and output
 * fields with their types.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { PluginManifest } from '../protocol/manifest'
import { pluginToolName } from '../protocol/toolNames'
import { validate } from '../validation'
import { PluginBuildError } from './errors'

export function readBuiltManifest(dir: string): PluginManifest {
  const file = join(dir, 'dist', 'tools.json')
  if (!existsSync(file))
    throw new PluginBuildError(`no build found (${file} is missing); run "bridge-plugin build" first`)
  let parsed: unknown
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'))
  } catch (error) {
    throw new PluginBuildError(`${file} is not valid JSON; run "bridge-plugin build" again`, { cause: error })
  }
  const checked = validate(PluginManifest, parsed, 'the top level')
  if (!checked.ok) throw new PluginBuildError(`${file}: ${checked.message}; run "bridge-plugin build" again`)
  return checked.value
}

export interface FieldSummary {
  name: string
  type: string
  required: boolean
  description?: string
}

/** Top-level properties of an object schema with a readable type (`string`, `integer[]`, `"a" | "b"`). */
export function describeFields(schema: Record<string, unknown> | undefined): FieldSummary[] {
  if (!schema) return []
  const properties = schema.properties as Record<string, Record<string, unknown>> | undefined
  if (!properties || typeof properties !== 'object') return []
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : [])
  return Object.entries(properties).map(([name, prop]) => ({
    name,
    type: typeName(prop),
    required: required.has(name),
    ...(typeof prop.description === 'string' ? { description: prop.description } : {}),
  }))
}

export function typeName(schema: Record<string, unknown> | undefined): string {
  if (!schema || typeof schema !== 'object') return 'unknown'
  if ('const' in schema) return JSON.stringify(schema.const)
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(' | ')
  const variants = (schema.anyOf ?? schema.oneOf) as Record<string, unknown>[] | undefined
  if (Array.isArray(variants)) return variants.map((v) => typeName(v)).join(' | ')
  if (schema.type === 'array') return `${wrap(typeName(schema.items as Record<string, unknown>))}[]`
  if (Array.isArray(schema.type)) return schema.type.join(' | ')
  if (typeof schema.type === 'string') return schema.type
  return 'unknown'
}

const wrap = (t: string) => (t.includes(' | ') ? `(${t})` : t)

/** The human-readable report printed by `bridge-plugin inspect`. */
export function formatInspect(manifest: PluginManifest): string {
  const lines = [
    `${manifest.displayName} (${manifest.name})`,
    `  version      ${manifest.version}`,
    `  sdk version  ${manifest.sdkVersion ?? 'unknown'}`,
    `  url patterns ${manifest.urlPatterns.join(', ')}`,
    `  icon         ${manifest.iconSvg ? 'yes' : 'no'}`,
    `  tools        ${manifest.tools.length}`,
  ]
  for (const tool of manifest.tools) {
    lines.push(
      '',
      `  ${pluginToolName(manifest.name, tool.name)}  ${tool.displayName}`,
      `    ${tool.description}`,
    )
    const hints = Object.entries(tool.annotations ?? {})
    if (hints.length)
      lines.push(`    annotations: ${hints.map(([key, value]) => `${key} ${String(value)}`).join(', ')}`)
    const section = (label: string, fields: FieldSummary[]) => {
      lines.push(`    ${label}:${fields.length ? '' : ' (none)'}`)
      for (const f of fields)
        lines.push(
          `      ${f.name}${f.required ? '' : '?'}: ${f.type}${f.description ? `  ${f.description}` : ''}`,
        )
    }
    section('input', describeFields(tool.inputSchema))
    if (tool.outputSchema) {
      const fields = describeFields(tool.outputSchema)
      if (fields.length) section('output', fields)
      else lines.push(`    output: ${typeName(tool.outputSchema)}`)
    }
  }
  return lines.join('\n')
}
