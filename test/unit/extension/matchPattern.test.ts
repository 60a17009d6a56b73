import { describe, expect, it } from 'vitest'
import { isValidMatchPattern, matchesAny, parseMatchPattern } from '../../../extension/lib/matchPattern'

const matches = (pattern: string, url: string): boolean => parseMatchPattern(pattern)?.(url) === true

describe('match patterns', () => {
  it('matches any port on a host when the pattern names none', () => {
    expect(matches('http://127.0.0.1/*', 'http://127.0.0.1:8787/')).toBe(true)
    expect(matches('http://127.0.0.1/*', 'http://127.0.0.1/notes?x=1')).toBe(true)
    expect(matches('http://127.0.0.1/*', 'http://localhost:8787/')).toBe(false)
  })

  it('matches only the named port when the pattern has one', () => {
    expect(matches('http://localhost:8080/*', 'http://localhost:8080/a')).toBe(true)
    expect(matches('http://localhost:8080/*', 'http://localhost:8081/a')).toBe(false)
  })

  it('reads * as the scheme http or https only', () => {
    expect(matches('*://example.com/*', 'https://example.com/')).toBe(true)
    expect(matches('*://example.com/*', 'http://example.com/')).toBe(true)
    expect(matches('*://example.com/*', 'ftp://example.com/')).toBe(false)
    expect(matches('https://example.com/*', 'http://example.com/')).toBe(false)
  })

  it('lets *.host match the host itself and its subdomains, not look-alikes', () => {
    expect(matches('https://*.example.com/*', 'https://example.com/')).toBe(true)
    expect(matches('https://*.example.com/*', 'https://a.b.example.com/x')).toBe(true)
    expect(matches('https://*.example.com/*', 'https://badexample.com/')).toBe(false)
    expect(matches('https://*.example.com/*', 'https://example.com.evil.io/')).toBe(false)
  })

  it('matches the path with wildcards, including the query string', () => {
    expect(matches('https://mail.example.com/mail/*', 'https://mail.example.com/mail/u/0')).toBe(true)
    expect(matches('https://mail.example.com/mail/*', 'https://mail.example.com/other')).toBe(false)
    expect(matches('https://example.com/a*b', 'https://example.com/a?x=b')).toBe(true)
    expect(matches('https://example.com/', 'https://example.com/page')).toBe(false)
    expect(matches('https://example.com/a.b', 'https://example.com/aXb')).toBe(false)
  })

  it('treats <all_urls> as every web and file URL but not browser pages', () => {
    expect(matches('<all_urls>', 'https://x.io/')).toBe(true)
    expect(matches('<all_urls>', 'file:///tmp/a.html')).toBe(true)
    expect(matches('<all_urls>', 'chrome://settings')).toBe(false)
  })

  it('rejects malformed patterns, which then match nothing', () => {
    for (const bad of [
      'example.com',
      'http://',
      'http://ex*ample.com/*',
      'chrome://x/*',
      'https://*.*.com/*',
      'http:/x.com/*',
    ])
      expect(isValidMatchPattern(bad), bad).toBe(false)
    expect(matchesAny(['not a pattern'], 'https://example.com/')).toBe(false)
  })

  it('never matches an unparseable URL', () => {
    expect(matches('*://*/*', 'not a url')).toBe(false)
    expect(matchesAny(['*://*/*', 'https://a.io/*'], 'https://a.io/x')).toBe(true)
  })
})
