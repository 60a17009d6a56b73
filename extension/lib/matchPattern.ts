/**
 * Chrome match patterns (`<scheme>://<host>/<path>`, `<all_urls>`), as plugins declare them in
 * `urlPatterns`. Parsed once into a predicate; an invalid pattern matches nothing.
 * Semantics follow Chrome: `*` scheme means http or https; a host `*.example.com` also matches
 * `example.com`; ports are ignored unless the pattern names one; the path is matched against
 * `pathname + search` with `*` as a wildcard.
 */
export type UrlMatcher = (url: string) => boolean

const SCHEMES = new Set(['http', 'https', 'ws', 'wss', 'file', 'ftp', '*'])
const PATTERN = /^([a-z*]+):\/\/([^/]*)(\/.*)$/

export function parseMatchPattern(pattern: string): UrlMatcher | null {
  if (pattern === '<all_urls>') return (url) => /^(https?|wss?|file|ftp):/.test(url)
  const m = PATTERN.exec(pattern)
  if (!m) return null
  const [, scheme = '', hostPart = '', path = ''] = m
  if (!SCHEMES.has(scheme)) return null
  if (scheme !== 'file' && hostPart === '') return null
  const host = hostMatcher(hostPart)
  if (!host) return null
  const pathRe = new RegExp(`^${path.split('*').map(escapeRegExp).join('.*')}$`)
  return (url) => {
    let parsed: URL
    try {
      parsed = new URL(url)
    } catch {
      return false
    }
    const s = parsed.protocol.slice(0, -1)
    if (scheme === '*' ? s !== 'http' && s !== 'https' : s !== scheme) return false
    if (scheme !== 'file' && !host(parsed.hostname, parsed.port)) return false
    return pathRe.test(parsed.pathname + parsed.search)
  }
}

/** True when `url` matches any of `patterns`. */
export function matchesAny(patterns: readonly string[], url: string): boolean {
  return patterns.some((p) => compiled(p)?.(url) === true)
}

/** True when the pattern is one Chrome would accept. */
export function isValidMatchPattern(pattern: string): boolean {
  return parseMatchPattern(pattern) !== null
}

const cache = new Map<string, UrlMatcher | null>()
function compiled(pattern: string): UrlMatcher | null {
  if (!cache.has(pattern)) cache.set(pattern, parseMatchPattern(pattern))
  return cache.get(pattern) ?? null
}

function hostMatcher(hostPart: string): ((hostname: string, port: string) => boolean) | null {
  // Split an explicit port off the host (IPv6 literals keep their brackets).
  const pm = /^(\[[^\]]+\]|[^:]*)(?::(\d+|\*))?$/.exec(hostPart)
  if (!pm) return null
  const [, rawHost = '', port] = pm
  const portOk = (p: string): boolean => port === undefined || port === '*' || port === p
  if (rawHost === '*') return (_h, p) => portOk(p)
  if (rawHost.includes('*') && !rawHost.startsWith('*.')) return null
  if (rawHost.startsWith('*.')) {
    const base = rawHost.slice(2).toLowerCase()
    if (base.includes('*') || base === '') return null
    return (h, p) => portOk(p) && (h === base || h.endsWith(`.${base}`))
  }
  const exact = rawHost.toLowerCase()
  return (h, p) => portOk(p) && h === exact
}

function escapeRegExp(s: string): string {
  return s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')
}
