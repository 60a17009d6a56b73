/**
 * `GET /proof` is the one endpoint that needs no token and involves the secret. Probed as an attacker
 * would: it must answer only a well-formed nonce, only with the HMAC (which the secret's holder can
 * check and nobody can invert), leak nothing else, stay behind the Host/Origin gate, and be rate-limited.
 */
import { createHmac, randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { EXTENSION_ORIGIN } from '../../src/protocol/constants'
import { ENGINES, startDaemon, type RunningDaemon } from '../helpers/daemon'
import { rawGet } from '../integration/http/rawHttp'

describe.each(ENGINES)('GET /proof on the %s engine', (engine) => {
  let daemon: RunningDaemon
  beforeAll(async () => {
    daemon = await startDaemon({ engine })
  })
  afterAll(async () => {
    await daemon?.stop()
  })

  const nonce = () => randomBytes(32).toString('hex')
  const hmac = (n: string) => createHmac('sha256', daemon.secret).update(`bridge-proof:${n}`).digest('hex')
  const proof = (query: string, init: RequestInit = {}) =>
    daemon.fetch(`/proof${query}`, { auth: false, ...init })

  it('answers a fresh nonce with its HMAC under the secret, and nothing else, without any token', async () => {
    const n = nonce()
    const res = await proof(`?nonce=${n}`)
    expect(res.status).toBe(200)
    const body = (await res.json()) as Record<string, unknown>
    expect(body).toEqual({ proof: hmac(n) })
    expect(JSON.stringify(body)).not.toContain(daemon.secret)
    const other = nonce()
    expect(await (await proof(`?nonce=${other}`)).json()).toEqual({ proof: hmac(other) })
  })

  it('refuses anything but one nonce of 64 lowercase hex characters with 400', async () => {
    const bad = [
      '',
      '?nonce=',
      `?nonce=${'a'.repeat(63)}`,
      `?nonce=${'A'.repeat(64)}`,
      `?nonce=${'g'.repeat(64)}`,
      `?nonce=${nonce()}&nonce=${nonce()}`,
      `?nonce=${'a'.repeat(64)}%00`,
    ]
    for (const query of bad) {
      const res = await proof(query)
      expect({ query, status: res.status }).toEqual({ query, status: 400 })
      expect(await res.json()).toEqual({
        error: { code: 'bad_request', message: 'nonce must be 64 lowercase hex characters' },
      })
    }
  })

  it('stays behind the gate: a web page Origin or a foreign Host is refused', async () => {
    expect((await proof(`?nonce=${nonce()}`, { headers: { origin: 'https://evil.example' } })).status).toBe(
      403,
    )
    // A DNS-rebound page: its own host name in Host (fetch cannot set Host, so raw HTTP).
    const rebound = await rawGet(daemon.port, `/proof?nonce=${nonce()}`, ['Host: evil.example'])
    expect(rebound.status).toBe(403)
    expect(rebound.body).not.toContain('proof')
  })

  it('refuses what a web page sends (image, navigation, no-cors fetch) with 403 before it counts', async () => {
    const pageHeaders: Array<Record<string, string>> = [
      { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'image' },
      { 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'empty' },
      { 'sec-fetch-site': 'none', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' },
      { 'sec-fetch-mode': 'cors', 'sec-fetch-dest': 'iframe' },
      { 'sec-fetch-site': 'none', 'sec-fetch-user': '?1' },
    ]
    for (let i = 0; i < 200; i++) {
      const headers = pageHeaders[i % pageHeaders.length]!
      const res = await proof(`?nonce=${nonce()}`, { headers })
      expect({ headers, status: res.status }).toEqual({ headers, status: 403 })
      expect(await res.text()).not.toContain('proof')
    }
    // None of them counted: a plain local request and the extension's still get their proof.
    expect((await proof(`?nonce=${nonce()}`)).status).toBe(200)
    expect((await proof(`?nonce=${nonce()}`, { headers: { origin: EXTENSION_ORIGIN } })).status).toBe(200)
  })

  it('counts the extension’s Origin and other local callers apart, and never counts a holder of the secret', async () => {
    const callerMac = (n: string) =>
      createHmac('sha256', daemon.secret).update(`bridge-caller:${n}`).digest('hex')
    for (let i = 0; i < 130; i++) await (await proof(`?nonce=${nonce()}`)).body?.cancel()
    expect((await proof(`?nonce=${nonce()}`)).status).toBe(429)
    // The extension's budget is its own.
    expect((await proof(`?nonce=${nonce()}`, { headers: { origin: EXTENSION_ORIGIN } })).status).toBe(200)
    // A caller that shows it holds the secret is answered although the local budget is spent...
    const n = nonce()
    const held = await proof(`?nonce=${n}&caller=${callerMac(n)}`)
    expect(held.status).toBe(200)
    expect(await held.json()).toEqual({ proof: hmac(n) })
    // ...once per nonce: a replay, or a wrong caller, counts like anyone else.
    expect((await proof(`?nonce=${n}&caller=${callerMac(n)}`)).status).toBe(429)
    const other = nonce()
    expect((await proof(`?nonce=${other}&caller=${callerMac(nonce())}`)).status).toBe(429)
  })

  it('allows 120 requests a minute, then 429 with Retry-After', async () => {
    let limited: Response | undefined
    for (let i = 0; i < 130 && !limited; i++) {
      const res = await proof(`?nonce=${nonce()}`)
      if (res.status === 429) limited = res
      else await res.body?.cancel()
    }
    expect(limited?.status).toBe(429)
    expect(limited?.headers.get('retry-after')).toBe('60')
  })
})
