/**
 * What network capture never hands an agent unless a person approved it: the values of headers that
 * carry credentials (authorization, cookies, API keys, CSRF and session tokens, signed-request
 * tokens) and of URL query or fragment parameters that look like credentials (tokens, keys,
 * signatures, passwords, OAuth codes, sessions), plus the password of a URL's user info. URLs inside
 * `Referer` and `Location` headers are redacted the same way. Names are kept, values become
 * `[redacted]`. Pure functions: no Chrome APIs, so they are unit-tested directly.
 *
 * Credentials are kept only when the call asked for them and its tool's permission is `ask`, so a
 * person saw the request (`includeCredentials: true`) in the approval prompt (`credentialsAllowed`).
 */

export const REDACTED = '[redacted]'

const CREDENTIAL_HEADERS = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'set-cookie2',
  'x-api-key',
  'x-csrf-token',
  'x-xsrf-token',
  'x-goog-api-key',
  'x-amz-security-token',
  'x-auth-token',
  'x-access-token',
  'x-refresh-token',
  'x-session-id',
  'x-amz-credential',
  'x-amz-signature',
])
/** `x-*-token`, `x-*-key`, `x-*-secret`, `x-*-signature`, `x-*-session`, `x-*-password`. */
const CREDENTIAL_HEADER_PATTERN = /^x-(?:[a-z0-9]+-)*(?:token|key|secret|signature|session|password)$/

const CREDENTIAL_PARAMS = new Set([
  'token',
  'access_token',
  'id_token',
  'refresh_token',
  'auth_token',
  'key',
  'api_key',
  'apikey',
  'sig',
  'signature',
  'password',
  'passwd',
  'pwd',
  'secret',
  'client_secret',
  'auth',
  'code',
  'session',
  'sessionid',
  'session_id',
  'sid',
  'jwt',
  'ticket',
  'otp',
  'credential',
  'credentials',
  'x-amz-signature',
  'x-amz-credential',
  'x-amz-security-token',
  'x-goog-signature',
  'x-goog-credential',
  'awsaccesskeyid',
])
/** Any parameter whose name ends in token, secret, password, signature, api key or credential. */
const CREDENTIAL_PARAM_PATTERN = /(?:token|secret|passw(?:or)?d|signature|api[-_]?key|credentials?)$/

export function isCredentialHeader(name: string): boolean {
  const lower = name.toLowerCase()
  return CREDENTIAL_HEADERS.has(lower) || CREDENTIAL_HEADER_PATTERN.test(lower)
}

export function isCredentialParam(name: string): boolean {
  const lower = name.toLowerCase()
  return CREDENTIAL_PARAMS.has(lower) || CREDENTIAL_PARAM_PATTERN.test(lower)
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

/** `a=1&token=x` -> `a=1&token=[redacted]`, every other byte of the string as it was. */
function redactParams(query: string): string {
  return query
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=')
      const name = eq < 0 ? pair : pair.slice(0, eq)
      return eq >= 0 && isCredentialParam(decodeName(name)) ? `${name}=${REDACTED}` : pair
    })
    .join('&')
}

/**
 * The URL with credential-looking query and fragment parameter values and any user-info password
 * replaced by `[redacted]`; a string that is not an absolute URL is returned as it is.
 */
export function redactUrl(url: string): string {
  const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(url)
  if (!scheme || /^(data|blob|javascript|about):/i.test(url)) return url
  let out = url
  // scheme://user:password@host -> scheme://user:[redacted]@host
  out = out.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/?#@:]*):[^/?#@]*@/i, `$1:${REDACTED}@`)
  const hash = out.indexOf('#')
  const fragment = hash < 0 ? '' : out.slice(hash + 1)
  const beforeHash = hash < 0 ? out : out.slice(0, hash)
  const question = beforeHash.indexOf('?')
  const base = question < 0 ? beforeHash : beforeHash.slice(0, question)
  const query = question < 0 ? undefined : beforeHash.slice(question + 1)
  return (
    base +
    (query === undefined ? '' : `?${redactParams(query)}`) +
    (hash < 0 ? '' : `#${fragment.includes('=') ? redactParams(fragment) : fragment}`)
  )
}

/** Header values as strings, credential values replaced (unless `keep`), URLs in Referer and Location redacted. */
export function redactHeaders(
  headers: Record<string, unknown> | undefined,
  keep = false,
): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers ?? {})) {
    const text = String(value)
    if (keep) out[name] = text
    else if (isCredentialHeader(name)) out[name] = REDACTED
    else if (/^(referer|location|content-location)$/i.test(name)) out[name] = redactUrl(text)
    else out[name] = text
  }
  return out
}
