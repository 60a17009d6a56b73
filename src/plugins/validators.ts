/**
 * Tool input validators: every tool's JSON Schema compiled once per discovery with ajv in strict
 * mode (an unknown keyword or a malformed schema fails the plugin instead of validating nothing).
 * One ajv instance per plugin, so `$id`s of different plugins never collide.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import addFormats from 'ajv-formats'
import type { ToolManifest } from '../protocol/manifest'
import type { InputCheck } from './types'

const MAX_REPORTED_ERRORS = 5

export type CompileResult =
  { ok: true; value: (tool: string, input: unknown) => InputCheck } | { ok: false; message: string }

export function compileValidators(tools: readonly ToolManifest[]): CompileResult {
  const ajv = new Ajv({ strict: true, allErrors: true, allowUnionTypes: true, logger: false })
  addFormats(ajv)
  const compiled = new Map<string, ValidateFunction>()
  for (const tool of tools) {
    try {
      compiled.set(tool.name, ajv.compile(tool.inputSchema))
    } catch (error) {
      return {
        ok: false,
        message: `tool "${tool.name}" input schema: ${error instanceof Error ? error.message : String(error)}`,
      }
    }
  }
  return {
    ok: true,
    value: (tool, input) => {
      const check = compiled.get(tool)
      if (!check) return { ok: false, message: `no tool "${tool}"` }
      if (check(input)) return { ok: true }
      return { ok: false, message: describeErrors(check.errors ?? []) }
    },
  }
}

/** `limit must be <= 100; title is required` - readable by an agent that has to fix its call. */
export function describeErrors(errors: readonly ErrorObject[]): string {
  const parts = errors.slice(0, MAX_REPORTED_ERRORS).map((e) => {
    const path = e.instancePath ? e.instancePath.slice(1).replaceAll('/', '.') : 'input'
    const params = e.params as Record<string, unknown>
    if (e.keyword === 'required')
      return `${path === 'input' ? '' : `${path}.`}${String(params.missingProperty)} is required`
    if (e.keyword === 'additionalProperties')
      return `${path} has an unknown property "${String(params.additionalProperty)}"`
    if (e.keyword === 'enum') return `${path} must be one of ${JSON.stringify(params.allowedValues)}`
    return `${path} ${e.message ?? 'is invalid'}`
  })
  if (errors.length > MAX_REPORTED_ERRORS) parts.push(`and ${errors.length - MAX_REPORTED_ERRORS} more`)
  return parts.join('; ') || 'input does not match the schema'
}
