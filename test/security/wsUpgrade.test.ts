/**
 * Attacks on the extension's socket (/ws) through the daemon's one front (src/http/front.ts: the gate
 * and the routes in one file, src/ws/extensionSockets.ts the daemon's end of the socket), as each
 * attacker would make them, on both HTTP engines. Each holds the one thing that is hard to get, the
 * secret (a leaked copy, a process that read it), and lacks another: a web page's Origin, a DNS
 * rebinding Host, another extension's id, or no Origin at all. None may get a socket open, and the real
 * extension's connection next to them keeps working.
 */
import WebSocket from 'ws'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { EXTENSION_ID, EXTENSION_ORIGIN } from '../../src/protocol/constants'
import { ENGINES } from '../helpers/daemon'
import { FakeExtension } from '../helpers/fakeExtension'
import { startFixture, type Fixture } from '../integration/toolcall/fixture'

/** Opens /ws with these headers; the HTTP status of the refusal, or 'open' when the socket opened. */
function upgrade(port: number, secret: string, headers: Record<string, string>): Promise<number | 'open'> {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`, ['bridge', secret], { headers })
  ws.on('error', () => undefined)
  return new Promise((resolve) => {
    ws.once('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0)
      ws.terminate()
    })
    ws.once('open', () => {
      resolve('open')
      ws.terminate()
    })
  })
}

describe.each(ENGINES)('attacks on /ws (%s engine)', (engine) => {
  let fx: Fixture
  beforeAll(async () => {
    fx = await startFixture(engine)
  })
  afterAll(async () => {
    await fx?.stop()
  })

  it.each<[string, (port: number) => Record<string, string>]>([
    ['a web page holding the secret', () => ({ origin: 'https://evil.example' })],
    ['a page on loopback holding the secret', (port) => ({ origin: `http://127.0.0.1:${port}` })],
    [
      'another extension holding the secret',
      () => ({ origin: `chrome-extension://${'b'.repeat(EXTENSION_ID.length)}` }),
    ],
    [
      'a DNS rebinding page (its name for 127.0.0.1 as Host) with the extension’s Origin',
      (port) => ({ origin: EXTENSION_ORIGIN, host: `evil.example:${port}` }),
    ],
    ['a client that sends no Origin', () => ({})],
  ])('refuses %s', async (_who, headers) => {
    const status = await upgrade(fx.daemon.port, fx.daemon.secret, headers(fx.daemon.port))
    expect(status).not.toBe('open')
    expect(status).toBeGreaterThanOrEqual(400)
    // The extension itself still connects and is answered.
    const ext = await FakeExtension.connect(fx.daemon)
    try {
      ext.notify('ping', { ts: 7 })
      expect((await ext.waitFor('pong')).params).toEqual({ ts: 7 })
    } finally {
      await ext.close()
    }
  })
})
