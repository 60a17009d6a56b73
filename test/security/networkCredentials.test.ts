// Network capture hands no credential to an agent that a person did not approve: header values that
// carry credentials and credential-looking URL parameters are redacted on the way in. The redaction
// itself is checked directly, then in real Chromium with the real extension recording a page that
// sends a bearer token, receives cookies and loads URLs carrying tokens and signatures, with the call
// asking for credentials but not approved by anyone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  credentialsAllowed,
  isCredentialHeader,
  isCredentialParam,
  redactHeaders,
  redactUrl,
} from '../../extension/builtins/credentialRedaction'
import { startBuiltinsHarness, type BuiltinsHarness } from '../e2e/builtins/harness'

describe('credential redaction', () => {
  it.each([
    'Authorization',
    'proxy-authorization',
    'Cookie',
    'set-cookie',
    'X-API-Key',
    'x-csrf-token',
    'X-XSRF-TOKEN',
    'x-goog-api-key',
    'x-amz-security-token',
    'x-github-token',
    'x-my-service-auth-token',
  ])('redacts the %s header', (name) => {
    expect(isCredentialHeader(name)).toBe(true)
    expect(redactHeaders({ [name]: 'secret-value-1', Accept: 'text/html' })).toEqual({
      [name]: '[redacted]',
      Accept: 'text/html',
    })
  })

  it('keeps ordinary headers and redacts URLs inside Referer and Location', () => {
    for (const name of ['accept', 'content-type', 'x-request-id', 'user-agent'])
      expect(isCredentialHeader(name)).toBe(false)
    expect(
      redactHeaders({
        Referer: 'https://app.example/cb?code=oauth-code-1&state=s',
        Location: 'https://app.example/#access_token=tok-2&token_type=bearer',
      }),
    ).toEqual({
      Referer: 'https://app.example/cb?code=[redacted]&state=s',
      Location: 'https://app.example/#access_token=[redacted]&token_type=bearer',
    })
  })

  it.each([
    ['token', 'https://a.example/p?token=t1&x=1', 'https://a.example/p?token=[redacted]&x=1'],
    ['access_token', 'https://a.example/p?access_token=t1', 'https://a.example/p?access_token=[redacted]'],
    [
      'id_token and refresh_token',
      'https://a.example/?id_token=a&refresh_token=b',
      'https://a.example/?id_token=[redacted]&refresh_token=[redacted]',
    ],
    [
      'key and api_key',
      'https://maps.example/js?key=K1&api_key=K2&apikey=K3',
      'https://maps.example/js?key=[redacted]&api_key=[redacted]&apikey=[redacted]',
    ],
    [
      'signed S3 URLs',
      'https://b.s3.example/o?X-Amz-Credential=c&X-Amz-Signature=s&X-Amz-Expires=60',
      'https://b.s3.example/o?X-Amz-Credential=[redacted]&X-Amz-Signature=[redacted]&X-Amz-Expires=60',
    ],
    [
      'sig, password, secret, auth, code, session',
      'https://a.example/?sig=1&password=2&secret=3&auth=4&code=5&session=6&page=7',
      'https://a.example/?sig=[redacted]&password=[redacted]&secret=[redacted]&auth=[redacted]&code=[redacted]&session=[redacted]&page=7',
    ],
    [
      'names ending in token',
      'https://a.example/?csrf_token=1&authToken=2',
      'https://a.example/?csrf_token=[redacted]&authToken=[redacted]',
    ],
    ['encoded names', 'https://a.example/?access%5Ftoken=1', 'https://a.example/?access%5Ftoken=[redacted]'],
    [
      'a fragment',
      'https://a.example/cb#access_token=1&expires_in=3600',
      'https://a.example/cb#access_token=[redacted]&expires_in=3600',
    ],
    ['user info', 'https://user:hunter2@a.example/x', 'https://user:[redacted]@a.example/x'],
  ])('redacts %s in URLs', (_what, url, expected) => {
    expect(redactUrl(url)).toBe(expected)
  })

  it('leaves URLs without credentials byte for byte', () => {
    for (const url of [
      'https://a.example/p?q=a+b&x=%20',
      'https://a.example/#section',
      'data:text/plain,token=1',
      'not a url',
    ])
      expect(redactUrl(url)).toBe(url)
    expect(isCredentialParam('q')).toBe(false)
  })

  it('keeps credentials only when the call asked for them and its permission is ask', () => {
    expect(credentialsAllowed(true, 'ask')).toBe(true)
    expect(credentialsAllowed(true, 'auto')).toBe(false)
    expect(credentialsAllowed(true, undefined)).toBe(false)
    expect(credentialsAllowed(false, 'ask')).toBe(false)
    expect(redactHeaders({ Authorization: 'Bearer x' }, true)).toEqual({ Authorization: 'Bearer x' })
  })
})

describe('network capture in real Chromium', () => {
  let h: BuiltinsHarness
  beforeAll(async () => {
    h = await startBuiltinsHarness()
  })
  afterAll(async () => {
    await h?.close()
  })

  it('records no credential when a call asks for them without a person approving it', async () => {
    const tab = await h.ok<{ tabId: number }>('browser_open_tab', { url: h.site.url('/') })
    // No daemon tells the extension this tool is "ask": asking is not enough.
    expect(await h.ok('browser_network_start', { tabId: tab.tabId, includeCredentials: true })).toEqual({
      tabId: tab.tabId,
      capturing: true,
      credentials: 'redacted',
    })
    await h.ok('browser_navigate', { tabId: tab.tabId, url: h.site.url('/network') })
    await h.ok('browser_wait_for', { tabId: tab.tabId, text: 'got 3 items' })
    const leaky = h.site.url('/missing?access_token=leak-me-1&x=1&X-Amz-Signature=leak-me-2')
    await h.ok('browser_navigate', { tabId: tab.tabId, url: leaky })
    await h.ok('browser_wait_for', { timeoutMs: 300 })

    const list = await h.ok<{
      requests: Array<{
        url: string
        requestHeaders: Record<string, string>
        responseHeaders: Record<string, string>
      }>
    }>('browser_network_requests', { tabId: tab.tabId, includeHeaders: true })
    const har = await h.ok('browser_network_export_har', { tabId: tab.tabId })
    for (const text of [JSON.stringify(list), JSON.stringify(har)]) {
      expect(text).not.toContain('leak-me')
      expect(text).not.toContain('top-secret-token')
      expect(text).not.toContain('api=1')
    }
    const api = list.requests.find((r) => r.url === h.site.url('/api/data?x=1'))
    expect(api?.requestHeaders.Authorization).toBe('[redacted]')
    expect(list.requests.map((r) => r.url)).toContain(
      h.site.url('/missing?access_token=[redacted]&x=1&X-Amz-Signature=[redacted]'),
    )
    await h.ok('browser_network_stop', { tabId: tab.tabId })
  })
})
