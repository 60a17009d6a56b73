/**
 * `--plugins`, `--sites`, `--builtins` and `--other-agent` of `bridge client add|set`, read into a
 * change of a client's scope (src/config/clientScopes.ts). A flag not given leaves that part as it is.
 */
import { parseScopeList, type ClientScope } from '../../../src/config/clientScopes'

export interface ScopeFlags {
  plugins?: unknown
  sites?: unknown
  builtins?: unknown
  otherAgent?: unknown
}

export type ScopeChange =
  { ok: true; apply: (scope: ClientScope) => ClientScope } | { ok: false; message: string }

const LISTS = ['plugins', 'sites', 'builtins'] as const

/** Whether any scope flag was given. */
export function hasScopeFlags(flags: ScopeFlags): boolean {
  return LISTS.some((key) => flags[key] !== undefined) || flags.otherAgent !== undefined
}

export function scopeChangeOf(flags: ScopeFlags): ScopeChange {
  const lists: Partial<Record<(typeof LISTS)[number], string[] | undefined>> = {}
  for (const key of LISTS) {
    const value = flags[key]
    if (value === undefined) continue
    if (typeof value !== 'string' && typeof value !== 'number')
      return { ok: false, message: `--${key} takes one value: a comma-separated list, all or none` }
    const parsed = parseScopeList(key, String(value))
    if (!parsed.ok) return parsed
    lists[key] = parsed.value
  }
  let otherAgent: boolean | undefined
  if (flags.otherAgent !== undefined) {
    const value =
      flags.otherAgent === true
        ? 'yes'
        : typeof flags.otherAgent === 'string'
          ? flags.otherAgent
          : JSON.stringify(flags.otherAgent)
    if (value !== 'yes' && value !== 'no')
      return { ok: false, message: `--other-agent takes yes or no (got "${value}")` }
    otherAgent = value === 'yes'
  }
  return {
    ok: true,
    apply: (scope) => {
      const next: ClientScope = { ...scope }
      for (const key of LISTS) {
        if (!(key in lists)) continue
        const value = lists[key]
        if (value === undefined) delete next[key]
        else next[key] = value
      }
      if (otherAgent === true) next.otherAgent = true
      else if (otherAgent === false) delete next.otherAgent
      return next
    },
  }
}
