/**
 * What network capture hands an agent that no person approved: only values known to be harmless. A
 * list of credential names always misses the next one (`apikey`, `Private-Token`, `;jsessionid`...),
 * so the rule is inverted: header values pass only for a small list of headers that never carry a
 * secret, query and fragment values only under a small list of parameter names, cookies keep their
 * names and lose their values, path parameters (`;jsessionid=`) and a URL's user-info password lose
 * their values. URLs inside `Referer`, `Location` and `Content-Location` pass with their own values
 * redacted; every other header (`Refresh`, `Link`, custom `X-*` headers) is withheld. Names are kept,
 * values become `[redacted]`, and each redaction is named in a `withheld` list so the agent knows what
 * it did not get. Pure functions: no Chrome APIs, so they are unit-tested directly.
 *
 * Credentials are kept only when the call asked for them and its tool's permission is `ask`, so a
 * person saw the request (`includeCredentials: true`) in the approval prompt (`credentialsAllowed`).
 */

export const REDACTED = '[redacted]'

/** Names of what was withheld, in the order met, each once (`request header apikey`, `query token`). */
export type Withheld = Set<string>

/** Headers whose values are never a credential: content negotiation, caching, dates, CORS, fetch metadata. */
const HARMLESS_HEADERS = new Set([
  'accept',
  'accept-encoding',
  'accept-language',
  'accept-ranges',
  'access-control-allow-credentials',
  'access-control-allow-headers',
  'access-control-allow-methods',
  'access-control-allow-origin',
  'access-control-expose-headers',
  'access-control-max-age',
  'access-control-request-headers',
  'access-control-request-method',
  'age',
  'cache-control',
  'connection',
  'content-encoding',
  'content-language',
  'content-length',
  'content-range',
  'content-type',
  'cross-origin-embedder-policy',
  'cross-origin-opener-policy',
  'cross-origin-resource-policy',
  'date',
  'expires',
  'host',
  'if-modified-since',
  'keep-alive',
  'last-modified',
  'origin',
  'pragma',
  'priority',
  'range',
  'referrer-policy',
  'sec-ch-ua',
  'sec-ch-ua-mobile',
  'sec-ch-ua-platform',
  'sec-fetch-dest',
  'sec-fetch-mode',
  'sec-fetch-site',
  'sec-fetch-user',
  'server',
  'strict-transport-security',
  'timing-allow-origin',
  'transfer-encoding',
  'upgrade-insecure-requests',
  'user-agent',
  'vary',
  'via',
  'x-content-type-options',
  'x-frame-options',
  'x-xss-protection',
])
/** Headers that hold one URL: it passes with its own credentials redacted. */
const URL_HEADERS = new Set(['referer', 'location', 'content-location'])
/** Headers that hold cookies: names pass, values do not. */
const COOKIE_HEADERS = new Set(['cookie', 'set-cookie', 'set-cookie2'])

/**
 * Parameter names (query, fragment, form, JSON) whose values are paging, sorting, searching,
 * language or format, never a secret.
 */
const HARMLESS_PARAMS = new Set([
  'page',
  'per_page',
  'perpage',
  'page_size',
  'pagesize',
  'limit',
  'offset',
  'start',
  'count',
  'sort',
  'sort_by',
  'order',
  'order_by',
  'direction',
  'q',
  'query',
  'search',
  'lang',
  'locale',
  'hl',
  'format',
  'view',
  'tab',
  'utm_source',
  'utm_medium',
  'utm_campaign',
  'utm_term',
  'utm_content',
  'operationname',
])

export function isHarmlessHeader(name: string): boolean {
  return HARMLESS_HEADERS.has(name.toLowerCase())
}

export function isHarmlessParam(name: string): boolean {
  return HARMLESS_PARAMS.has(name.toLowerCase())
}

/** Only a call that asked for credentials, under a permission that made a person approve it. */
export function credentialsAllowed(asked: boolean | undefined, permission: string | undefined): boolean {
  return asked === true && permission === 'ask'
}

function decodeName(raw: string): string {
  try {
    return decodeURIComponent(raw.replaceAll('+', ' '))
  } catch {
    return raw
  }
}

/** `a=1&page=2` -> `a=[redacted]&page=2`: values under names not known to be harmless are withheld. */
export function redactParams(query: string, withheld: Withheld, where = 'query'): string {
  return query
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=')
      if (eq < 0) return pair
      const name = decodeName(pair.slice(0, eq))
      if (isHarmlessParam(name) || eq === pair.length - 1) return pair
      withheld.add(`${where} ${name}`)
      return `${pair.slice(0, eq)}=${REDACTED}`
    })
    .join('&')
}

/** `/app;jsessionid=x/items` -> `/app;jsessionid=[redacted]/items`: path parameters are never harmless. */
function redactPathParams(path: string, withheld: Withheld): string {
  return path.replace(/;([^/;=?#]+)=([^/;?#]*)/g, (_all, name: string) => {
    withheld.add(`path parameter ${decodeName(name)}`)
    return `;${name}=${REDACTED}`
  })
}

/**
 * The URL with its user-info password, path parameter values, and query and fragment values not
 * known to be harmless replaced by `[redacted]`; a string that is not an absolute URL is returned as
 * it is.
 */
export function redactUrl(url: string, withheld: Withheld = new Set()): string {
  const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(url)
  if (!scheme || /^(data|blob|javascript|about):/i.test(url)) return url
  let out = url
  // scheme://user:password@host -> scheme://user:[redacted]@host
  out = out.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/?#@:]*):[^/?#@]*@/i, (_all, before: string) => {
    withheld.add('URL password')
    return `${before}:${REDACTED}@`
  })
  const hash = out.indexOf('#')
  const fragment = hash < 0 ? '' : out.slice(hash + 1)
  const beforeHash = hash < 0 ? out : out.slice(0, hash)
  const question = beforeHash.indexOf('?')
  const base = question < 0 ? beforeHash : beforeHash.slice(0, question)
  const query = question < 0 ? undefined : beforeHash.slice(question + 1)
  return (
    redactPathParams(base, withheld) +
    (query === undefined ? '' : `?${redactParams(query, withheld)}`) +
    (hash < 0 ? '' : `#${fragment.includes('=') ? redactParams(fragment, withheld, 'fragment') : fragment}`)
  )
}

/** Set-Cookie attributes that say where and how long a cookie lives, never what it holds. */
const COOKIE_ATTRIBUTES = new Set([
  'path',
  'domain',
  'expires',
  'max-age',
  'secure',
  'httponly',
  'samesite',
  'partitioned',
  'priority',
])

/**
 * `a=1; b=2` (Cookie) or `sid=x; Path=/; HttpOnly` (Set-Cookie): cookie names and known attributes,
 * no value (a part without a name is withheld whole).
 */
function redactCookies(header: string, value: string, withheld: Withheld): string {
  const setCookie = header !== 'cookie'
  return value
    .split('\n')
    .map((line) =>
      line
        .split(';')
        .map((part, index) => {
          const eq = part.indexOf('=')
          const name = (eq < 0 ? part : part.slice(0, eq)).trim()
          if (setCookie && index > 0 && COOKIE_ATTRIBUTES.has(name.toLowerCase())) return part
          if (eq < 0) {
            if (part.trim() === '') return part
            withheld.add('cookie (unnamed)')
            return ` ${REDACTED}`.slice(index === 0 ? 1 : 0)
          }
          withheld.add(`cookie ${name}`)
          return `${part.slice(0, eq)}=${REDACTED}`
        })
        .join(';'),
    )
    .join('\n')
}

/**
 * Header values as strings. Without `keep`: harmless headers as they are, URL headers with their URL
 * redacted, cookies without values, every other value `[redacted]`; what was withheld goes to
 * `withheld` as `<side> header <name>`.
 */
export function redactHeaders(
  headers: Record<string, unknown> | undefined,
  keep = false,
  withheld: Withheld = new Set(),
  side: 'request' | 'response' = 'request',
): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers ?? {})) {
    const text = String(value)
    const lower = name.toLowerCase()
    if (keep || isHarmlessHeader(lower)) out[name] = text
    else if (URL_HEADERS.has(lower)) out[name] = redactUrl(text, withheld)
    else if (COOKIE_HEADERS.has(lower)) out[name] = redactCookies(lower, text, withheld)
    else {
      out[name] = REDACTED
      withheld.add(`${side} header ${name}`)
    }
  }
  return out
}
