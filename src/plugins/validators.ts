/**
 * A plugin's tool input validators, from src/validation.ts (one Ajv, strict). Compiling is the dear
 * part (a few ms per schema), so loading 100 plugins of 20 tools would take seconds: at load each
 * schema is only checked (meta-schema, and every keyword and format known, so a typo never validates
 * nothing), and compiled on the tool's first call; an unchanged schema comes from the cache.
 * `bridge-plugin build` compiles every schema up front (`eager`) to catch the rest before it ships.
 */
import { closedSchema } from '../closedSchema'
import type { ToolManifest } from '../protocol/manifest'
import { compileSchema, schemaProblem, type Validator } from '../validation'
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
  const compiled = new Map<string, Validator | string>()
  const compile = (tool: string, schema: object): Validator | string => {
    let check = compiled.get(tool)
    if (check === undefined) {
      // Closed: a property the tool does not declare is refused by name (src/closedSchema.ts).
      const result = compileSchema(closedSchema(schema))
      check = result.ok ? result.value : `tool "${tool}" input schema: ${result.message}`
      compiled.set(tool, check)
    }
    return check
  }
  if (options.eager)
    for (const [tool, schema] of schemas) {
      const check = compile(tool, schema)
      if (typeof check === 'string') return { ok: false, message: check }
    }
  return {
    ok: true,
    value: (tool, input) => {
      const schema = schemas.get(tool)
      if (schema === undefined) return { ok: false, message: `no tool "${tool}"` }
      const check = compile(tool, schema)
      if (typeof check === 'string') return { ok: false, message: `${check}; the plugin must fix the schema` }
      const result = check(input)
      return result.ok ? { ok: true } : result
    },
  }
}
