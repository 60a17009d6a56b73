/**
 * A plugin's tool input validators, from src/validation.ts (one Ajv, strict). Each schema is checked
 * when the plugin loads, without compiling it: a malformed schema (meta-schema) or a keyword or format
 * strict mode would refuse fails the plugin, so a typo never validates nothing. Compiling is the dear
 * part, so it happens on a tool's first call (and an unchanged schema comes from the cache).
 * `bridge-plugin build` compiles every schema up front (`eager`) to catch the rest before it ships.
 */
import type { ToolManifest } from '../protocol/manifest'
import { compileSchema, schemaProblem, type Validation, type Validator } from '../validation'
import type { InputCheck } from './types'

export type CompileResult =
  { ok: true; value: (tool: string, input: unknown) => InputCheck } | { ok: false; message: string }

export function compileValidators(
  tools: readonly ToolManifest[],
  options: { eager?: boolean } = {},
): CompileResult {
  for (const tool of tools) {
    const problem = schemaProblem(tool.inputSchema)
    if (problem) return { ok: false, message: `tool "${tool.name}" input schema: ${problem}` }
  }
  const schemas = new Map(tools.map((tool) => [tool.name, tool.inputSchema]))
  const compiled = new Map<string, Validation<Validator>>()
  const compile = (tool: string, schema: object): Validation<Validator> => {
    let validator = compiled.get(tool)
    if (!validator) {
      const result = compileSchema(schema)
      validator = result.ok
        ? result
        : { ok: false, message: `tool "${tool}" input schema: ${result.message}` }
      compiled.set(tool, validator)
    }
    return validator
  }
  if (options.eager)
    for (const [tool, schema] of schemas) {
      const validator = compile(tool, schema)
      if (!validator.ok) return validator
    }
  return {
    ok: true,
    value: (tool, input) => {
      const schema = schemas.get(tool)
      if (schema === undefined) return { ok: false, message: `no tool "${tool}"` }
      const validator = compile(tool, schema)
      if (!validator.ok) return { ok: false, message: `${validator.message}; the plugin must fix the schema` }
      const result = validator.value(input)
      return result.ok ? { ok: true } : result
    },
  }
}
