// Network capture hands no credential to an agent that a person did not approve: only values known to
// be harmless pass (a small allow-list of headers and parameter names), everything else is redacted on
// the way in and named in `withheld`. The redaction itself is checked directly, then in real Chromium
// with the real extension recording a page that sends a bearer token, receives cookies and loads URLs
// carrying tokens and signatures, with the call asking for credentials but not approved by anyone.
// test/security/networkCaptureLeaks.test.ts attacks it with what a name list would miss.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { redactFrame, redactRequestBody, redactResponseBody } from '../../extension/builtins/bodyRedaction'
import {
  credentialsAllowed,
  isHarmlessHeader,
  redactHeaders,
  redactUrl,
  type Withheld,
} from '../../extension/builtins/credentialRedaction'
import { startBuiltinsHarness, type BuiltinsHarness } from '../e2e/builtins/harness'

describe('credential redaction', () => {
  it.each([
    'Authorization',
    'Cookie',
    'X-API-Key',
    'apikey',
    'api-key',
    'Private-Token',
    'Ocp-Apim-Subscription-Key',
    'X-CSRFToken',
    'X-Authorization',
    'Refresh',
    'Link',
    'X-Anything-New',
  ])('withholds the value of the %s header and says so', (name) => {
    expect(isHarmlessHeader(name)).toBe(false)
    const withheld: Withheld = new Set()
    const out = redactHeaders({ [name]: 'secret-value-1', Accept: 'text/html' }, false, withheld)
    expect(out.Accept).toBe('text/html')
    expect(out[name]).not.toContain('secret-value-1')
    expect([...withheld].join().toLowerCase()).toContain(name.toLowerCase())
  })

  it('keeps harmless headers, cookie names, and URLs inside Referer and Location with their own values redacted', () => {
    for (const name of ['accept', 'Content-Type', 'content-length', 'cache-control', 'date'])
      expect(isHarmlessHeader(name)).toBe(true)
    const withheld: Withheld = new Set()
    expect(
      redactHeaders(
        {
          Referer: 'https://app.example/cb?code=oauth-code-1&page=2',
          Location: 'https://app.example/#access_token=tok-2&token_type=bearer',
          Cookie: 'sid=s1; theme=dark',
          'Set-Cookie': 'sid=s2; Path=/; HttpOnly',
        },
        false,
        withheld,
        'response',
      ),
    ).toEqual({
      Referer: 'https://app.example/cb?code=[redacted]&page=2',
      Location: 'https://app.example/#access_token=[redacted]&token_type=[redacted]',
      Cookie: 'sid=[redacted]; theme=[redacted]',
      'Set-Cookie': 'sid=[redacted]; Path=/; HttpOnly',
    })
    expect([...withheld]).toEqual([
      'query code',
      'fragment access_token',
      'fragment token_type',
      'cookie sid',
      'cookie theme',
    ])
  })

  it.each([
    ['a token', 'https://a.example/p?token=t1&page=1', 'https://a.example/p?token=[redacted]&page=1'],
    [
      'any unknown name',
      'https://a.example/?state=s&ck=c',
      'https://a.example/?state=[redacted]&ck=[redacted]',
    ],
    [
      'signed S3 URLs',
      'https://b.s3.example/o?X-Amz-Credential=c&X-Amz-Signature=s',
      'https://b.s3.example/o?X-Amz-Credential=[redacted]&X-Amz-Signature=[redacted]',
    ],
    [
      'path parameters',
      'https://a.example/app;jsessionid=J1/x',
      'https://a.example/app;jsessionid=[redacted]/x',
    ],
    ['encoded names', 'https://a.example/?access%5Ftoken=1', 'https://a.example/?access%5Ftoken=[redacted]'],
    ['user info', 'https://user:hunter2@a.example/x', 'https://user:[redacted]@a.example/x'],
  ])('redacts %s in URLs', (_what, url, expected) => {
    expect(redactUrl(url)).toBe(expected)
  })

  it('leaves URLs with only harmless values byte for byte', () => {
    for (const url of [
      'https://a.example/p?q=a+b&page=%20',
      'https://a.example/#section',
      'https://a.example/p?flag',
      'data:text/plain,token=1',
      'not a url',
    ])
      expect(redactUrl(url)).toBe(url)
  })

  it('withholds request bodies field by field: JSON, GraphQL literals, forms, multipart, and any other text whole', () => {
    const withheld: Withheld = new Set()
    expect(
      JSON.parse(
        redactRequestBody(
          JSON.stringify({
            page: 2,
            user: { name: 'a', remember: true },
            query: 'query { me(id: "u1") { id } }',
          }),
          'application/json',
          withheld,
        ),
      ),
    ).toEqual({
      page: 2,
      user: { name: '[redacted]', remember: true },
      query: 'query { me(id: "[redacted]") { id } }',
    })
    expect(redactRequestBody('user=al&page=1&pw=x', 'application/x-www-form-urlencoded', withheld)).toBe(
      'user=[redacted]&page=1&pw=[redacted]',
    )
    const multipart = [
      '--B',
      'Content-Disposition: form-data; name="q"',
      '',
      'cats',
      '--B',
      'Content-Disposition: form-data; name="password"',
      '',
      'hunter2',
      '--B--',
      '',
    ].join('\r\n')
    const redacted = redactRequestBody(multipart, 'multipart/form-data; boundary=B', withheld)
    expect(redacted).toContain('cats')
    expect(redacted).not.toContain('hunter2')
    expect(redactRequestBody('<login><pw>hunter2</pw></login>', 'text/xml', withheld)).toBe(
      '[redacted] (31 characters)',
    )
    expect([...withheld]).toEqual(
      expect.arrayContaining([
        'body field name',
        'GraphQL literals',
        'form field pw',
        'form field password',
        'request body',
      ]),
    )
  })

  it('keeps response bodies but credential-named fields, and withholds frames like request bodies', () => {
    const withheld: Withheld = new Set()
    expect(
      JSON.parse(redactResponseBody('{"items":[1],"access_token":"t","session":{"id":1}}', withheld)),
    ).toEqual({
      items: [1],
      access_token: '[redacted]',
      session: { id: 1 },
    })
    expect(redactResponseBody('<p>hello</p>', withheld)).toBe('<p>hello</p>')
    expect(JSON.parse(redactFrame('{"type":"auth","token":"t"}', withheld))).toEqual({
      type: '[redacted]',
      token: '[redacted]',
    })
    expect(redactFrame('hello there', withheld)).toBe('[redacted] (11 characters)')
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
    const api = list.requests.find((r) => r.url === h.site.url('/api/data?x=[redacted]'))
    expect(api?.requestHeaders.Authorization).toBe('[redacted]')
    expect(list.requests.map((r) => r.url)).toContain(
      h.site.url('/missing?access_token=[redacted]&x=[redacted]&X-Amz-Signature=[redacted]'),
    )
    await h.ok('browser_network_stop', { tabId: tab.tabId })
  })
})
