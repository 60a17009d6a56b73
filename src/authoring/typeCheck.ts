/**
 * `bridge-plugin build` type-checks the plugin with the TypeScript the plugin folder installed (the
 * scaffold lists it in devDependencies), against its own tsconfig.json: esbuild only strips types, so
 * without this a typo in a tool's input type builds and fails in the page. TypeScript is loaded from
 * the plugin's folder, never bundled with bridge; without it the check is skipped and says how to
 * enable it.
 */
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import type * as TypeScript from 'typescript'

export type TypeCheckResult =
  { ran: false; reason: string } | { ran: true; errors: string[]; files: number; version: string }

/** At most this many errors are printed; the count says how many there were. */
const MAX_ERRORS = 20

export function typeCheckPlugin(dir: string): TypeCheckResult {
  const configFile = join(dir, 'tsconfig.json')
  if (!existsSync(configFile)) return { ran: false, reason: 'no tsconfig.json in the plugin folder' }
  const ts = loadTypeScript(dir)
  if (!ts)
    return {
      ran: false,
      reason:
        'TypeScript is not installed in the plugin folder (run `npm install`, or `npm i -D typescript`)',
    }
  const read = ts.readConfigFile(configFile, (path) => ts.sys.readFile(path))
  const host: TypeScript.FormatDiagnosticsHost = {
    getCanonicalFileName: (name) => name,
    getCurrentDirectory: () => dir,
    getNewLine: () => '\n',
  }
  if (read.error)
    return {
      ran: true,
      errors: [ts.formatDiagnostic(read.error, host).trim()],
      files: 0,
      version: ts.version,
    }
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, dir, undefined, configFile)
  const program = ts.createProgram(parsed.fileNames, { ...parsed.options, noEmit: true })
  const diagnostics = [...parsed.errors, ...ts.getPreEmitDiagnostics(program)].filter(
    (d) => d.category === ts.DiagnosticCategory.Error,
  )
  const errors = diagnostics.slice(0, MAX_ERRORS).map((d) => ts.formatDiagnostic(d, host).trim())
  if (diagnostics.length > MAX_ERRORS) errors.push(`... and ${diagnostics.length - MAX_ERRORS} more`)
  return { ran: true, errors, files: parsed.fileNames.length, version: ts.version }
}

function loadTypeScript(dir: string): typeof TypeScript | undefined {
  const require = createRequire(join(dir, 'package.json'))
  try {
    return require(require.resolve('typescript')) as typeof TypeScript
  } catch {
    return undefined
  }
}
