/**
 * Tab matching for plugin `urlPatterns`. The rules are the SDK's (`src/sdk/matchPattern.ts`), the same
 * ones `bridge-plugin build` validated the patterns with; here each pattern is parsed once and cached.
 * An invalid pattern matches nothing.
 */
import { matchesPattern, parseMatchPattern as parse, type MatchPattern } from '../../src/sdk/matchPattern'

export type UrlMatcher = (url: string) => boolean

/** A predicate for one pattern, or null when Chrome would not accept the pattern. */
export function parseMatchPattern(pattern: string): UrlMatcher | null {
  const parsed = parse(pattern)
  if (!parsed.ok) return null
  const value: MatchPattern = parsed.value
  return (url) => matchesPattern(value, url)
}

/** True when the pattern is one Chrome would accept. */
export function isValidMatchPattern(pattern: string): boolean {
  return parse(pattern).ok
}

const cache = new Map<string, UrlMatcher | null>()

/** True when `url` matches any of `patterns`. */
export function matchesAny(patterns: readonly string[], url: string): boolean {
  return patterns.some((pattern) => {
    if (!cache.has(pattern)) cache.set(pattern, parseMatchPattern(pattern))
    return cache.get(pattern)?.(url) === true
  })
}
