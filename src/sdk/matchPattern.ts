/**
 * Chrome extension match patterns (`<scheme>://<host><path>` or `<all_urls>`): the `urlPatterns` of a
 * plugin select the tabs it runs in. `bridge-plugin build` validates them with `parseMatchPattern`;
 * the extension can use `matchesPattern` to pick tabs. Rules follow Chrome's: scheme `*` (http and
 * https), `http`, `https`, `file` or `ftp`; host `*`, `*.<domain>` or an exact host, with an optional
 * port (`:8080` or `:*`; no port means any port); the path is required and may use `*` anywhere.
 */

export interface MatchPattern {
  /** `<all_urls>` or a parsed pattern. */
  all: boolean
  scheme: '*' | 'http' | 'https' | 'file' | 'ftp'
  /** `*`, an exact host, or the domain after `*.` when `subdomains` is true. Lowercase. */
  host: string
  subdomains: boolean
  /** Undefined or `*`: any port. */
  port?: string
  path: string
}

export type ParseResult = { ok: true; value: MatchPattern } | { ok: false; message: string }

const SCHEMES = ['*', 'http', 'https', 'file', 'ftp'] as const
const HOST_NAME = /^(?=.{1,253}$)[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*\.?$/
const IPV6 = /^\[[0-9a-f:.]+\]$/

/** Parses one pattern; the message says what is wrong and what a valid pattern looks like. */
export function parseMatchPattern(pattern: string): ParseResult {
  const fail = (why: string): ParseResult => ({
    ok: false,
    message: `"${pattern}" is not a valid match pattern: ${why} (example: "https://*.example.com/*")`,
  })
  if (pattern === '<all_urls>')
    return { ok: true, value: { all: true, scheme: '*', host: '*', subdomains: false, path: '/*' } }
  const sep = pattern.indexOf('://')
  if (sep < 0) return fail('expected <scheme>://<host><path> or <all_urls>')
  const scheme = pattern.slice(0, sep)
  if (!(SCHEMES as readonly string[]).includes(scheme))
    return fail(`scheme "${scheme}" is not one of ${SCHEMES.map((s) => `"${s}"`).join(', ')}`)
  const rest = pattern.slice(sep + 3)
  const slash = rest.indexOf('/')
  if (slash < 0) return fail('the path is missing; add at least "/" or "/*" after the host')
  const authority = rest.slice(0, slash).toLowerCase()
  const path = rest.slice(slash)

  if (scheme === 'file') {
    if (authority !== '') return fail('file patterns have no host: use "file:///<path>"')
    return { ok: true, value: { all: false, scheme, host: '', subdomains: false, path } }
  }
  if (authority === '') return fail('the host is missing')

  const hostPort = /^(\[[^\]]*\]|[^:]*)(?::(.*))?$/.exec(authority)
  let host = hostPort?.[1] ?? ''
  const port = hostPort?.[2]
  if (port !== undefined && !(port === '*' || (/^\d{1,5}$/.test(port) && Number(port) <= 65535)))
    return fail(`port "${port}" must be a number up to 65535 or "*"`)
  const withPort = port === undefined ? {} : { port }
  const typedScheme = scheme as MatchPattern['scheme']
  if (host === '*')
    return {
      ok: true,
      value: { all: false, scheme: typedScheme, host, subdomains: false, ...withPort, path },
    }
  let subdomains = false
  if (host.startsWith('*.')) {
    subdomains = true
    host = host.slice(2)
  }
  if (host.includes('*')) return fail('"*" in the host is only allowed alone or as a leading "*."')
  if (!IPV6.test(host) && !HOST_NAME.test(host)) return fail(`"${host}" is not a valid host name`)
  return {
    ok: true,
    value: { all: false, scheme: typedScheme, host, subdomains, ...withPort, path },
  }
}

const DEFAULT_PORTS: Record<string, string> = { 'http:': '80', 'https:': '443', 'ftp:': '21' }

/** True when `url` is matched by `pattern` (a string or a parsed pattern). Invalid input never matches. */
export function matchesPattern(pattern: string | MatchPattern, url: string): boolean {
  const parsed =
    typeof pattern === 'string' ? parseMatchPattern(pattern) : { ok: true as const, value: pattern }
  if (!parsed.ok) return false
  const p = parsed.value
  let u: URL
  try {
    u = new URL(url)
  } catch {
    return false
  }
  const scheme = u.protocol.slice(0, -1)
  if (p.all) return ['http', 'https', 'file', 'ftp'].includes(scheme)
  if (p.scheme === '*' ? scheme !== 'http' && scheme !== 'https' : scheme !== p.scheme) return false
  if (p.scheme !== 'file') {
    const host = u.hostname.toLowerCase()
    if (p.host !== '*') {
      const exact = host === p.host
      if (!(exact || (p.subdomains && host.endsWith(`.${p.host}`)))) return false
    }
    if (p.port !== undefined && p.port !== '*' && (u.port || DEFAULT_PORTS[u.protocol]) !== p.port)
      return false
  }
  return globMatch(p.path, u.pathname + u.search)
}

function globMatch(glob: string, text: string): boolean {
  const source = glob
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*')
  return new RegExp(`^${source}$`).test(text)
}
