import { describe, expect, it } from 'vitest'
import { matchesPattern, parseMatchPattern } from '../../../src/sdk/matchPattern'

const problem = (pattern: string) => {
  const result = parseMatchPattern(pattern)
  return result.ok ? 'valid' : result.message
}

describe('parseMatchPattern', () => {
  it.each([
    '<all_urls>',
    'https://example.com/*',
    'http://127.0.0.1/*',
    'http://localhost:8080/app/*',
    'http://localhost:*/*',
    '*://*/*',
    '*://*.example.com/',
    'https://*.co.uk/path*',
    'ftp://files.example.org/pub/*',
    'file:///home/*',
    'http://[::1]:9000/*',
    'https://xn--bcher-kva.example/*',
  ])('accepts %s', (pattern) => {
    expect(problem(pattern)).toBe('valid')
  })

  it.each([
    ['example.com/*', 'expected <scheme>://<host><path> or <all_urls>'],
    ['chrome://settings/*', 'scheme "chrome" is not one of'],
    ['https://example.com', 'the path is missing'],
    ['https:///*', 'the host is missing'],
    ['https://exa*mple.com/*', '"*" in the host is only allowed alone or as a leading "*."'],
    ['https://*example.com/*', '"*" in the host is only allowed'],
    ['https://example.*/*', '"*" in the host is only allowed'],
    ['https://example.com:99999/*', 'port "99999" must be a number up to 65535 or "*"'],
    ['https://example.com:abc/*', 'port "abc"'],
    ['https://exa mple.com/*', 'is not a valid host name'],
    ['https://-bad.com/*', 'is not a valid host name'],
    ['file://host/path', 'file patterns have no host'],
    ['<all_url>', 'expected <scheme>://'],
  ])('rejects %s', (pattern, message) => {
    expect(problem(pattern)).toContain(message)
    expect(problem(pattern)).toContain(`"${pattern}" is not a valid match pattern`)
  })

  it('parses host, subdomains, port and path', () => {
    expect(parseMatchPattern('https://*.Example.com:8443/a/*')).toEqual({
      ok: true,
      value: {
        all: false,
        scheme: 'https',
        host: 'example.com',
        subdomains: true,
        port: '8443',
        path: '/a/*',
      },
    })
  })
})

describe('matchesPattern', () => {
  it.each([
    ['http://127.0.0.1/*', 'http://127.0.0.1:8787/notes', true],
    ['http://127.0.0.1/*', 'http://localhost:8787/', false],
    ['http://localhost:8080/*', 'http://localhost:8080/x', true],
    ['http://localhost:8080/*', 'http://localhost:8081/x', false],
    ['https://example.com:443/*', 'https://example.com/x', true],
    ['*://example.com/*', 'http://example.com/', true],
    ['*://example.com/*', 'ftp://example.com/', false],
    ['https://*.example.com/*', 'https://example.com/', true],
    ['https://*.example.com/*', 'https://a.b.example.com/', true],
    ['https://*.example.com/*', 'https://badexample.com/', false],
    ['https://*.example.com/*', 'https://example.com.evil.io/', false],
    ['https://example.com/app/*', 'https://example.com/app/x?y=1', true],
    ['https://example.com/app/*', 'https://example.com/other', false],
    ['https://example.com/*.html', 'https://example.com/a.html', true],
    ['https://example.com/a.b', 'https://example.com/aXb', false],
    ['<all_urls>', 'https://anything.test/', true],
    ['<all_urls>', 'chrome://settings/', false],
    ['file:///home/*', 'file:///home/me/a.txt', true],
    ['http://[::1]/*', 'http://[::1]:9000/', true],
    ['not a pattern', 'https://example.com/', false],
    ['https://example.com/*', 'not a url', false],
  ])('%s vs %s -> %s', (pattern, url, expected) => {
    expect(matchesPattern(pattern, url)).toBe(expected)
  })
})
