/**
 * The shape check of a plugin's dist/tools.json against `PluginManifest`, with the problems named by
 * their path (e.g. `tools.0.description must be string`).
 */
import { PluginManifest } from '../protocol/manifest'
import { validate } from '../validation'

export type ShapeResult = { ok: true; value: PluginManifest } | { ok: false; message: string }

export function checkManifestShape(value: unknown): ShapeResult {
  const checked = validate(PluginManifest, value, 'the top level')
  return checked.ok ? checked : { ok: false, message: `is invalid: ${checked.message}` }
}
