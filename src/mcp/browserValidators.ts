import { Ajv, type ValidateFunction } from 'ajv'
import addFormats from 'ajv-formats'
import type { CatalogBrowserTool } from '../ws/catalog'

export type InputCheck = { ok: true } | { ok: false; message: string }

/** Input validators for the built-in tools, compiled once per tool list. */
export function createBrowserValidators(
  tools: () => readonly CatalogBrowserTool[],
): (name: string, input: unknown) => InputCheck {
  let compiledFor: readonly CatalogBrowserTool[] | undefined
  let compiled = new Map<string, ValidateFunction>()
  let broken = new Set<string>()
  return (name, input) => {
    const list = tools()
    if (compiledFor !== list) {
      const ajv = new Ajv({ strict: false, allErrors: true, allowUnionTypes: true, logger: false })
      addFormats(ajv)
      compiled = new Map()
      broken = new Set()
      for (const tool of list) {
        try {
          compiled.set(tool.name, ajv.compile(tool.inputSchema))
        } catch {
          // A schema ajv cannot compile refuses its tool's calls instead of taking the daemon down.
          broken.add(tool.name)
        }
      }
      compiledFor = list
    }
    if (broken.has(name)) return { ok: false, message: `the input schema of "${name}" is invalid` }
    const validate = compiled.get(name)
    if (!validate) return { ok: false, message: `no built-in tool "${name}"` }
    if (validate(input)) return { ok: true }
    const message = (validate.errors ?? [])
      .slice(0, 5)
      .map(
        (e) =>
          `${e.instancePath ? e.instancePath.slice(1).replaceAll('/', '.') : 'input'} ${e.message ?? 'is invalid'}`,
      )
      .join('; ')
    return { ok: false, message: message || 'input does not match the schema' }
  }
}
