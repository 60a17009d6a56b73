import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { EXTENSION_ORIGIN } from '../../../src/protocol/constants'
import { ENGINES, startDaemon, type RunningDaemon } from '../../helpers/daemon'
import { rawGet, rawRequest } from './rawHttp'

const MB = 1024 * 1024

async function errorOf(res: Response): Promise<{ code: string; message: string }> {
  expect(res.headers.get('content-type')).toMatch(/^application\/json/)
  return ((await res.json()) as { error: { code: string; message: string } }).error
}

/** Opens a WebSocket and reports how the handshake ended: the HTTP refusal, or the accepted protocol. */
function tryUpgrade(
  url: string,
  init: { protocols?: string[]; headers?: Record<string, string> },
): Promise<{ status: number; body: string } | { protocol: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, init.protocols ?? [], { headers: init.headers })
    ws.on('unexpected-response', (_req, res) => {
      let body = ''
      res.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
    })
    ws.on('open', () => {
      resolve({ protocol: ws.protocol })
      ws.close()
    })
    ws.on('error', (error) => {
      if (!/Unexpected server response/.test(error.message)) reject(error)
    })
  })
}

describe.each(ENGINES)('security gate on the %s engine', (engine) => {
  let daemon: RunningDaemon
  beforeAll(async () => {
    daemon = await startDaemon({ engine })
  })
  afterAll(async () => {
    await daemon?.stop()
  })

  describe('Host allow-list', () => {
    const auth = () => `Authorization: Bearer ${daemon.secret}`

    it.each(['127.0.0.1', 'localhost', '[::1]', 'LOCALHOST'])('accepts Host %s:<port>', async (host) => {
      const res = await rawGet(daemon.port, '/ws-info', [`Host: ${host}:${daemon.port}`, auth()])
      expect(res.status).toBe(200)
      expect(JSON.parse(res.body)).toEqual({ wsUrl: `ws://127.0.0.1:${daemon.port}/ws` })
    })

    it('refuses Host evil.com:<port> with 403 forbidden_host, even with the token', async () => {
      const res = await rawGet(daemon.port, '/ws-info', [`Host: evil.com:${daemon.port}`, auth()])
      expect(res.status).toBe(403)
      expect(res.headers['content-type']).toMatch(/^application\/json/)
      expect(JSON.parse(res.body)).toEqual({ error: { code: 'forbidden_host', message: expect.any(String) } })
    })

    it.each([
      'evil.com:9515',
      'evil.com',
      '127.0.0.1',
      'localhost:1',
      '127.0.0.1.nip.io:PORT',
      'localhost:PORT.evil.com',
    ])('refuses Host %s', async (host) => {
      const res = await rawGet(daemon.port, '/health', [`Host: ${host.replace('PORT', String(daemon.port))}`])
      expect(res.status).toBe(403)
      expect(JSON.parse(res.body)).toMatchObject({ error: { code: 'forbidden_host' } })
    })

    it('refuses two Host headers even when both are allowed', async () => {
      const host = `Host: 127.0.0.1:${daemon.port}`
      const res = await rawGet(daemon.port, '/health', [host, host])
      expect(res.status).toBe(403)
      expect(JSON.parse(res.body)).toMatchObject({ error: { code: 'forbidden_host' } })
    })

    it('refuses two Host headers where one is foreign, in either order', async () => {
      for (const pair of [
        [`127.0.0.1:${daemon.port}`, 'evil.com'],
        ['evil.com', `127.0.0.1:${daemon.port}`],
      ]) {
        const res = await rawGet(
          daemon.port,
          '/health',
          pair.map((h) => `Host: ${h}`),
        )
        expect(res.status).toBe(403)
        expect(JSON.parse(res.body)).toMatchObject({ error: { code: 'forbidden_host' } })
      }
    })

    it('refuses a request without a Host header', async () => {
      const res = await rawGet(daemon.port, '/health', [])
      // node answers 400 itself; uWS closes the connection without an answer. Neither reaches a route.
      expect([0, 400, 403]).toContain(res.status)
      expect(res.body).not.toContain('"status":"ok"')
    })

    it('checks Host before Origin', async () => {
      const res = await rawGet(daemon.port, '/health', ['Host: evil.com', 'Origin: https://evil.com'])
      expect(JSON.parse(res.body)).toMatchObject({ error: { code: 'forbidden_host' } })
    })
  })

  describe('Origin pin', () => {
    it('refuses a web page Origin with 403 forbidden_origin, even with the token', async () => {
      const res = await daemon.fetch('/ws-info', { headers: { origin: 'https://evil.example' } })
      expect(res.status).toBe(403)
      expect((await errorOf(res)).code).toBe('forbidden_origin')
    })

    it('refuses another extension and the literal "null" origin', async () => {
      for (const origin of [
        'chrome-extension://abcdefghijklmnopabcdefghijklmnop',
        'null',
        `${EXTENSION_ORIGIN}.evil`,
      ]) {
        const res = await daemon.fetch('/health', { auth: false, headers: { origin } })
        expect(res.status, origin).toBe(403)
        expect((await errorOf(res)).code).toBe('forbidden_origin')
      }
    })

    it("accepts the bridge extension's own origin", async () => {
      const res = await daemon.fetch('/ws-info', { headers: { origin: EXTENSION_ORIGIN } })
      expect(res.status).toBe(200)
      expect(await res.json()).toEqual({ wsUrl: `ws://127.0.0.1:${daemon.port}/ws` })
    })
  })

  describe('Bearer token', () => {
    const cases: [string, (secret: string) => Record<string, string>][] = [
      ['missing', () => ({})],
      ['wrong', (s) => ({ authorization: `Bearer ${s.replace(/^./, (c) => (c === 'a' ? 'b' : 'a'))}` })],
      ['short', (s) => ({ authorization: `Bearer ${s.slice(0, 10)}` })],
      ['longer', (s) => ({ authorization: `Bearer ${s}0` })],
      ['empty', () => ({ authorization: 'Bearer ' })],
      ['in another scheme', (s) => ({ authorization: `Basic ${s}` })],
    ]
    it.each(cases)(
      'refuses a %s token with 401 unauthorized and WWW-Authenticate: Bearer',
      async (_name, headers) => {
        const res = await daemon.fetch('/ws-info', { auth: false, headers: headers(daemon.secret) })
        expect(res.status).toBe(401)
        expect(res.headers.get('www-authenticate')).toBe('Bearer')
        const error = await errorOf(res)
        expect(error.code).toBe('unauthorized')
        expect(error.message).not.toContain(daemon.secret.slice(0, 10))
      },
    )

    it('never writes the secret to server.log or the terminal', async () => {
      await daemon.fetch('/ws-info', {
        auth: false,
        headers: { authorization: `Bearer ${daemon.secret.slice(0, 20)}` },
      })
      expect(daemon.output()).not.toContain(daemon.secret)
      expect(daemon.output()).not.toContain(daemon.secret.slice(0, 20))
    })
  })

  describe('routes', () => {
    it('answers an unknown path with 404 not_found', async () => {
      const res = await daemon.fetch('/nope')
      expect(res.status).toBe(404)
      expect((await errorOf(res)).code).toBe('not_found')
    })

    it('answers a wrong method with 405 and an Allow header', async () => {
      const res = await daemon.fetch('/ws-info', { method: 'DELETE' })
      expect(res.status).toBe(405)
      expect(res.headers.get('allow')).toBe('GET')
      expect((await errorOf(res)).code).toBe('method_not_allowed')
    })

    it.each(['TRACE', 'CONNECT', 'PROPFIND', 'get'])(
      'refuses the method %s and keeps serving',
      async (method) => {
        const res = await rawRequest(daemon.port, [
          `${method} /health HTTP/1.1`,
          `Host: 127.0.0.1:${daemon.port}`,
          'Connection: close',
        ])
        // 405 from the engine, or 400 / a closed connection from the HTTP parser: never an answer from a route.
        expect([0, 400, 405]).toContain(res.status)
        expect(res.body).not.toContain('"status":"ok"')
        expect((await daemon.fetch('/health', { auth: false })).status).toBe(200)
      },
    )

    it('answers a plain GET on /ws (no upgrade) with 400', async () => {
      const res = await daemon.fetch('/ws')
      expect(res.status).toBe(400)
      expect((await errorOf(res)).code).toBe('bad_request')
    })
  })

  describe('admin rate limit', () => {
    it('allows 10 POST /extension/reload a minute, then answers 429 with Retry-After: 60', async () => {
      // Unauthenticated calls are refused before the limiter and do not use up the budget.
      for (let i = 0; i < 12; i++)
        expect((await daemon.fetch('/extension/reload', { method: 'POST', auth: false })).status).toBe(401)
      const statuses: number[] = []
      for (let i = 0; i < 10; i++)
        statuses.push((await daemon.fetch('/extension/reload', { method: 'POST' })).status)
      // No extension is connected in this test: each allowed call answers 503 extension_not_connected.
      expect(statuses).toEqual(Array<number>(10).fill(503))
      const limited = await daemon.fetch('/extension/reload', { method: 'POST' })
      expect(limited.status).toBe(429)
      expect(limited.headers.get('retry-after')).toBe('60')
      expect(await errorOf(limited)).toEqual({ code: 'rate_limited', message: expect.any(String) })
    })
  })

  describe('admin rate limit on /reload', () => {
    it('allows 10 POST /reload a minute, then answers 429 with Retry-After: 60', async () => {
      const statuses: number[] = []
      for (let i = 0; i < 10; i++) statuses.push((await daemon.fetch('/reload', { method: 'POST' })).status)
      expect(statuses).toEqual(Array<number>(10).fill(200))
      const limited = await daemon.fetch('/reload', { method: 'POST' })
      expect(limited.status).toBe(429)
      expect(limited.headers.get('retry-after')).toBe('60')
      expect(await errorOf(limited)).toEqual({ code: 'rate_limited', message: expect.any(String) })
    })
  })

  describe('body cap', () => {
    it('refuses a declared body over 10 MB with 413 payload_too_large without reading it', async () => {
      const res = await rawRequest(daemon.port, [
        'GET /ws-info HTTP/1.1',
        `Host: 127.0.0.1:${daemon.port}`,
        `Authorization: Bearer ${daemon.secret}`,
        `Content-Length: ${10 * MB + 1}`,
        'Connection: close',
      ])
      expect(res.status).toBe(413)
      expect(JSON.parse(res.body)).toEqual({
        error: { code: 'payload_too_large', message: expect.any(String) },
      })
    })
  })

  describe('/ws upgrade', () => {
    const wsUrl = () => `ws://127.0.0.1:${daemon.port}/ws`

    it('refuses a wrong secret with a real HTTP 401 before the upgrade', async () => {
      const result = await tryUpgrade(wsUrl(), { protocols: ['bridge', '0'.repeat(64)] })
      expect(result).toEqual({ status: 401, body: expect.stringContaining('"unauthorized"') })
    })

    it('refuses a missing secret and a missing subprotocol with 401', async () => {
      expect(await tryUpgrade(wsUrl(), { protocols: ['bridge'] })).toMatchObject({ status: 401 })
      expect(await tryUpgrade(wsUrl(), {})).toMatchObject({ status: 401 })
      expect(await tryUpgrade(wsUrl(), { protocols: [daemon.secret, 'bridge'] })).toMatchObject({
        status: 401,
      })
    })

    it('refuses the secret in the Authorization header instead of the subprotocol', async () => {
      const result = await tryUpgrade(wsUrl(), { headers: { authorization: `Bearer ${daemon.secret}` } })
      expect(result).toMatchObject({ status: 401 })
    })

    it('refuses a foreign Host or Origin with 403 even with the right secret', async () => {
      const badHost = await tryUpgrade(wsUrl(), {
        protocols: ['bridge', daemon.secret],
        headers: { host: 'evil.com' },
      })
      expect(badHost).toEqual({ status: 403, body: expect.stringContaining('"forbidden_host"') })
      const badOrigin = await tryUpgrade(wsUrl(), {
        protocols: ['bridge', daemon.secret],
        headers: { origin: 'https://evil.com' },
      })
      expect(badOrigin).toEqual({ status: 403, body: expect.stringContaining('"forbidden_origin"') })
    })

    it("refuses the right secret without the extension Origin with 403: /ws is the extension's alone", async () => {
      const result = await tryUpgrade(wsUrl(), { protocols: ['bridge', daemon.secret] })
      expect(result).toEqual({ status: 403, body: expect.stringContaining('"forbidden_origin"') })
    })

    it('refuses an upgrade on a path that is not a WebSocket endpoint with 404', async () => {
      const result = await tryUpgrade(`ws://127.0.0.1:${daemon.port}/health`, {
        protocols: ['bridge', daemon.secret],
      })
      expect(result).toMatchObject({ status: 404 })
    })

    it('accepts the right secret from the extension origin and selects the "bridge" subprotocol', async () => {
      const result = await tryUpgrade(wsUrl(), {
        protocols: ['bridge', daemon.secret],
        headers: { origin: EXTENSION_ORIGIN },
      })
      expect(result).toEqual({ protocol: 'bridge' })
    })
  })
})
