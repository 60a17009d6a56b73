/**
 * The shape check of a plugin's dist/tools.json against `PluginManifest`, with the first problem
 * named by its path (e.g. `"tools.0.description" must be string`).
 */
import { Ajv, type ValidateFunction } from 'ajv'
import { PluginManifest } from '../protocol/manifest'

let check: ValidateFunction | undefined

export type ShapeResult = { ok: true; value: PluginManifest } | { ok: false; message: string }

export function checkManifestShape(value: unknown): ShapeResult {
  check ??= new Ajv({ strict: false }).compile(PluginManifest)
  if (check(value)) return { ok: true, value: value as PluginManifest }
  const first = check.errors?.[0]
  if (!first) return { ok: false, message: 'does not match the manifest shape' }
  const where = first.instancePath ? `"${first.instancePath.slice(1).replaceAll('/', '.')}"` : 'the top level'
  const extra =
    first.keyword === 'required'
      ? ` (${String((first.params as { missingProperty?: unknown }).missingProperty)})`
      : ''
  return { ok: false, message: `is invalid at ${where}: ${first.message ?? 'wrong shape'}${extra}` }
}
