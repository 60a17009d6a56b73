/**
 * Validators compiled ahead of time, so that start-up compiles no schema: Ajv's compiler is the dear
 * part of validation (the JSON Schema meta-schema alone, which every plugin tool schema is checked
 * against, took ~25 ms and ~4 MB of a daemon's start). In the source tree (tests, type checks) this
 * module is empty and src/validation.ts compiles everything on first use; in the built bundles
 * scripts/build.mjs replaces it with Ajv's standalone code (scripts/precompileValidators.mjs) for the
 * meta-schema and the schemas every start checks: config.json, auth.json, clients.json and a plugin's
 * tools.json. Same Ajv, same options: the same answers and messages either way.
 */
import type { ValidateFunction } from 'ajv'

export interface Precompiled {
  /** The draft-07 meta-schema's validator (Ajv's default meta-schema). */
  meta?: ValidateFunction
  /** Validators by the schema's JSON text. */
  byText: ReadonlyMap<string, ValidateFunction>
}

export const precompiled: Precompiled = { byText: new Map() }
