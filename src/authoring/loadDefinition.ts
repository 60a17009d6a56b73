/**
 * Reads the tool definitions out of a plugin's entry without a browser: the entry is bundled as an
 * IIFE and evaluated in a fresh `vm` context that has no page and no Node APIs. Plugin code should do
 * nothing at module load beyond defining tools; code that touches `document` or `window` belongs in
 * `isReady()` and `handle()`.
 */
import { build, type Message } from 'esbuild'
import { relative } from 'node:path'
import { runInNewContext } from 'node:vm'
import { TOOL_NAME_PATTERN } from '../protocol/constants'
import type { PluginDefinition, ToolDefinition } from '../sdk/types'
import { PluginBuildError } from './errors'
import type { PluginPackage } from './readPackage'
import { sdkResolver } from './sdkLocation'

const GLOBAL = '__bridgePluginModule'

export async function loadDefinition(pkg: PluginPackage): Promise<PluginDefinition> {
  const code = await bundle(pkg, {
    entryPoints: [pkg.entry],
    format: 'iife',
    globalName: GLOBAL,
  })
  let mod: unknown
  try {
    const quiet = { log() {}, info() {}, warn() {}, error() {}, debug() {} }
    // Pure helpers a module may use for its constants; nothing that reaches the page, disk or network.
    const sandbox = { console: quiet, URL, URLSearchParams, TextEncoder, TextDecoder, atob, btoa }
    mod = runInNewContext(`${code}\n;${GLOBAL}`, sandbox, { filename: pkg.entry, timeout: 5_000 })
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error)
    throw new PluginBuildError(
      `${relative(pkg.dir, pkg.entry)} failed when loaded: ${reason}. Module-level code must not use the page (document, window); move that into isReady() or handle().`,
    )
  }
  const plugin = (mod as { default?: unknown } | undefined)?.default
  return checkDefinition(plugin, relative(pkg.dir, pkg.entry))
}

/** Bundles with the SDK resolver; esbuild errors become one readable PluginBuildError. */
export async function bundle(pkg: PluginPackage, options: Parameters<typeof build>[0]): Promise<string> {
  try {
    const result = await build({
      bundle: true,
      write: false,
      platform: 'browser',
      target: 'es2022',
      logLevel: 'silent',
      absWorkingDir: pkg.dir,
      plugins: [sdkResolver()],
      ...options,
    })
    const out = result.outputFiles?.[0]
    if (!out) throw new PluginBuildError('esbuild produced no output')
    return out.text
  } catch (error) {
    if (error instanceof PluginBuildError) throw error
    const errors = (error as { errors?: Message[] }).errors
    if (!errors?.length) throw new PluginBuildError(`bundling failed: ${String(error)}`, { cause: error })
    const lines = errors.map((m) =>
      m.location
        ? `  ${m.location.file}:${m.location.line}:${m.location.column + 1}: ${m.text}`
        : `  ${m.text}`,
    )
    throw new PluginBuildError(`bundling ${relative(pkg.dir, pkg.entry)} failed:\n${lines.join('\n')}`)
  }
}

const ANNOTATION_HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint']

function checkAnnotations(annotations: unknown, label: string): void {
  if (annotations === undefined) return
  if (typeof annotations !== 'object' || annotations === null || Array.isArray(annotations))
    throw new PluginBuildError(`${label} annotations must be an object, e.g. { readOnlyHint: true }`)
  for (const [key, value] of Object.entries(annotations)) {
    if (!ANNOTATION_HINTS.includes(key))
      throw new PluginBuildError(
        `${label} annotations.${key} is not a tool annotation (use ${ANNOTATION_HINTS.join(', ')})`,
      )
    if (typeof value !== 'boolean')
      throw new PluginBuildError(`${label} annotations.${key} must be true or false`)
  }
}

function checkDefinition(plugin: unknown, entry: string): PluginDefinition {
  if (typeof plugin !== 'object' || plugin === null)
    throw new PluginBuildError(
      `${entry} must default-export a plugin: export default definePlugin({ tools: [...] })`,
    )
  const p = plugin as Record<string, unknown>
  if (p.isReady !== undefined && typeof p.isReady !== 'function')
    throw new PluginBuildError(
      `${entry}: isReady must be a function returning true when the page can run tools`,
    )
  if (!Array.isArray(p.tools) || p.tools.length === 0)
    throw new PluginBuildError(`${entry}: the plugin has no tools; add defineTool({...}) entries to "tools"`)
  const seen = new Set<string>()
  p.tools.forEach((tool: unknown, i) => {
    const t = (typeof tool === 'object' && tool !== null ? tool : {}) as Record<string, unknown>
    const label = typeof t.name === 'string' ? `tool "${t.name}"` : `tools[${i}]`
    if (typeof t.name !== 'string' || !TOOL_NAME_PATTERN.test(t.name))
      throw new PluginBuildError(
        `${entry}: ${label} needs a name of lowercase words joined by underscores, starting with a letter (e.g. "list_notes")`,
      )
    if (seen.has(t.name)) throw new PluginBuildError(`${entry}: two tools are named "${t.name}"`)
    seen.add(t.name)
    if (typeof t.description !== 'string' || t.description.trim() === '')
      throw new PluginBuildError(
        `${entry}: ${label} needs a description; agents read it to decide when to call the tool`,
      )
    if (t.displayName !== undefined && typeof t.displayName !== 'string')
      throw new PluginBuildError(`${entry}: ${label} displayName must be a string`)
    checkAnnotations(t.annotations, `${entry}: ${label}`)
    if (typeof t.handle !== 'function')
      throw new PluginBuildError(`${entry}: ${label} needs a handle(input, ctx) function`)
    const input = t.input as Record<string, unknown> | undefined
    if (typeof input !== 'object' || input === null || input.type !== 'object')
      throw new PluginBuildError(`${entry}: ${label} input must be an object schema, e.g. Type.Object({})`)
  })
  return plugin as PluginDefinition & { tools: ToolDefinition[] }
}
