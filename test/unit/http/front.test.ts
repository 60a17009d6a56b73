import { describe, expect, it } from 'vitest'
import {
  checkHost,
  checkOrigin,
  hasValidBearer,
  hasValidWsProtocol,
  secretsEqual,
} from '../../../src/http/front'
import type { HttpReply } from '../../../src/http/engine'
import { EXTENSION_ORIGIN } from '../../../src/protocol/constants'

const SECRET = '0123456789abcdef'.repeat(4)
const headers = (init: Record<string, string>) => {
  const byName = new Map(Object.entries(init).map(([name, value]) => [name.toLowerCase(), value]))
  return { header: (name: string) => byName.get(name) ?? null }
}
const json = (reply: HttpReply | null | undefined): unknown => JSON.parse(reply?.body as string)

describe('checkHost', () => {
  it.each(['127.0.0.1:9515', 'localhost:9515', '[::1]:9515', 'LocalHost:9515'])('lets %s through', (host) => {
    expect(checkHost(headers({ host }), 9515)).toBeNull()
  })

  it.each([
    'evil.com:9515',
    '127.0.0.1',
    '127.0.0.1:9516',
    'localhost.:9515',
    '127.0.0.1:9515, 127.0.0.1:9515',
    ' 127.0.0.1:9515x',
  ])('refuses %s with 403 forbidden_host', (host) => {
    const res = checkHost(headers({ host }), 9515)
    expect(res?.status).toBe(403)
    expect(json(res)).toEqual({ error: { code: 'forbidden_host', message: expect.any(String) } })
  })

  it('refuses a missing Host', () => {
    expect(checkHost(headers({}), 9515)?.status).toBe(403)
  })
})

describe('checkOrigin', () => {
  it('lets requests without Origin and from the bridge extension through', () => {
    expect(checkOrigin(headers({}))).toBeNull()
    expect(checkOrigin(headers({ origin: EXTENSION_ORIGIN }))).toBeNull()
  })

  it.each([
    'https://example.com',
    'http://127.0.0.1:9515',
    'chrome-extension://aaaabbbbccccddddeeeeffffgggghhhh',
    'null',
    `${EXTENSION_ORIGIN}/`,
  ])('refuses Origin %s with 403 forbidden_origin', (origin) => {
    const res = checkOrigin(headers({ origin }))
    expect(res?.status).toBe(403)
    expect((json(res) as { error: { code: string } }).error.code).toBe('forbidden_origin')
  })
})

describe('hasValidBearer', () => {
  it('accepts exactly the secret', () => {
    expect(hasValidBearer(headers({ authorization: `Bearer ${SECRET}` }), SECRET)).toBe(true)
    expect(hasValidBearer(headers({ authorization: `bearer ${SECRET}` }), SECRET)).toBe(true)
  })

  it.each([
    ['missing', {}],
    ['wrong', { authorization: `Bearer ${'f'.repeat(64)}` }],
    ['a prefix', { authorization: `Bearer ${SECRET.slice(0, 63)}` }],
    ['longer', { authorization: `Bearer ${SECRET}0` }],
    ['another scheme', { authorization: `Token ${SECRET}` }],
    ['two tokens', { authorization: `Bearer ${SECRET} ${SECRET}` }],
  ])('refuses a %s token', (_name, init) => {
    expect(hasValidBearer(headers(init), SECRET)).toBe(false)
  })

  it('skips the check when no secret is configured', () => {
    expect(hasValidBearer(headers({}), null)).toBe(true)
  })
})

describe('hasValidWsProtocol', () => {
  it('accepts "bridge, <secret>"', () => {
    expect(hasValidWsProtocol(headers({ 'sec-websocket-protocol': `bridge, ${SECRET}` }), SECRET)).toBe(true)
    expect(hasValidWsProtocol(headers({ 'sec-websocket-protocol': `bridge,${SECRET}` }), SECRET)).toBe(true)
  })

  it.each([
    `${SECRET}, bridge`,
    'bridge',
    `bridge, ${SECRET.slice(1)}`,
    `bridge, ${SECRET}, extra`,
    `other, ${SECRET}`,
    '',
  ])('refuses "%s"', (value) => {
    expect(hasValidWsProtocol(headers({ 'sec-websocket-protocol': value }), SECRET)).toBe(false)
  })
})

describe('secretsEqual', () => {
  it('compares by value whatever the lengths', () => {
    expect(secretsEqual(SECRET, SECRET)).toBe(true)
    expect(secretsEqual('', SECRET)).toBe(false)
    expect(secretsEqual(SECRET.toUpperCase(), SECRET)).toBe(false)
  })
})
