/**
 * A plugin's tool input validators, from src/validation.ts (one Ajv, strict: an unknown keyword or a
 * malformed schema fails the plugin instead of validating nothing). Schemas are compiled when the
 * plugin loads, so a broken one is reported at once; an unchanged schema comes from the cache.
 */
import type { ToolManifest } from '../protocol/manifest'
import { compileSchema, type Validator } from '../validation'
import type { InputCheck } from './types'

export type CompileResult =
  { ok: true; value: (tool: string, input: unknown) => InputCheck } | { ok: false; message: string }

export function compileValidators(tools: readonly ToolManifest[]): CompileResult {
  const compiled = new Map<string, Validator>()
  for (const tool of tools) {
    const validator = compileSchema(tool.inputSchema)
    if (!validator.ok) return { ok: false, message: `tool "${tool.name}" input schema: ${validator.message}` }
    compiled.set(tool.name, validator.value)
  }
  return {
    ok: true,
    value: (tool, input) => {
      const check = compiled.get(tool)
      if (!check) return { ok: false, message: `no tool "${tool}"` }
      const result = check(input)
      return result.ok ? { ok: true } : result
    },
  }
}
