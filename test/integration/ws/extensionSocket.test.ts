import WebSocket from 'ws'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { ENGINES } from '../../helpers/daemon'
import { FakeExtension } from '../../helpers/fakeExtension'
import { startFixture, type Fixture } from '../toolcall/fixture'

describe.each(ENGINES)('/ws extension socket (%s engine)', (engine) => {
  let fx: Fixture
  let ext: FakeExtension | undefined
  const health = async () => (await (await fx.daemon.fetch('/health')).json()) as Record<string, unknown>

  beforeAll(async () => {
    fx = await startFixture(engine, {}, { BRIDGE_WS_KEEPALIVE_TIMEOUT_MS: '1500' })
  })
  afterEach(async () => {
    await ext?.close()
    ext = undefined
  })
  afterAll(async () => {
    await fx?.stop()
  })

  it('refuses an upgrade with a wrong secret with HTTP 401', async () => {
    const ws = new WebSocket(`ws://127.0.0.1:${fx.daemon.port}/ws`, ['bridge', 'f'.repeat(64)])
    ws.on('error', () => undefined)
    const status = await new Promise<number | undefined>((resolve) => {
      ws.once('unexpected-response', (_req, res) => resolve(res.statusCode))
      ws.once('open', () => resolve(undefined))
    })
    expect(status).toBe(401)
    ws.terminate()
  })

  it('sends sync.full on connect and reports the connection in health', async () => {
    ext = await FakeExtension.connect(fx.daemon)
    expect(ext.syncFull?.params).toMatchObject({
      protocolVersion: 1,
      serverVersion: expect.any(String),
      plugins: [],
    })
    expect((ext.syncFull?.params?.browserTools as unknown[]).length).toBeGreaterThan(10)
    expect(await health()).toMatchObject({ extensionConnected: true, extensionConnections: 1 })
  })

  it('answers ping with pong carrying the same ts', async () => {
    ext = await FakeExtension.connect(fx.daemon)
    ext.notify('ping', { ts: 12345 })
    expect((await ext.waitFor('pong')).params).toEqual({ ts: 12345 })
  })

  it('answers malformed JSON-RPC with the right errors and keeps serving', async () => {
    ext = await FakeExtension.connect(fx.daemon)
    ext.sendRaw('{"jsonrpc": "2.0", "method": "ping", ')
    ext.sendRaw('[{"jsonrpc":"2.0","method":"ping","params":{"ts":1}}]')
    ext.sendRaw('{"jsonrpc":"2.0","id":{"nested":true},"method":"config.getState"}')
    ext.sendRaw('"just a string"')
    await expect.poll(() => ext!.orphanAnswers().length).toBe(4)
    expect(ext.orphanAnswers().map((m) => m.error?.code)).toEqual([-32700, -32600, -32600, -32600])
    expect((await ext.request('no.such.method', {})).error).toEqual({
      code: -32601,
      message: 'Method not found: no.such.method',
    })
    const bad = await ext.request('config.setToolPermission', {
      plugin: 'browser',
      tool: 7,
      permission: 'auto',
    })
    expect(bad.error?.code).toBe(-32602)
    expect(bad.error?.message).toBe('Invalid params: tool must be string')
    // Notifications with bad params get no answer (JSON-RPC), but the connection stays up and useful.
    ext.notify('tool.progress', { dispatchId: 5 })
    ext.notify('confirmation.response', { id: 'x', decision: 'maybe' })
    ext.notify('ping', { ts: 2 })
    expect((await ext.waitFor('pong')).params).toEqual({ ts: 2 })
    expect((await ext.request('config.getState', {})).result).toMatchObject({ skipPermissions: false })
    expect((await health()).status).toBe('ok')
  })

  it('survives a burst of random and hostile frames', async () => {
    ext = await FakeExtension.connect(fx.daemon)
    let seed = 42
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
    const values: unknown[] = [null, true, 0, -1, 1e308, '', 'x', [], {}, { __proto__: { ok: true } }, [[[]]]]
    const pick = () => values[Math.floor(rand() * values.length)]
    const methods = [
      'tab.syncAll',
      'tab.stateChanged',
      'tool.progress',
      'config.setToolPermission',
      'ping',
      'constructor',
      '__proto__',
    ]
    for (let i = 0; i < 300; i++) {
      const method = methods[Math.floor(rand() * methods.length)]
      const frame =
        i % 3 === 0
          ? String.fromCharCode(
              ...Array.from({ length: 1 + Math.floor(rand() * 40) }, () => Math.floor(rand() * 0xffff)),
            )
          : JSON.stringify({
              jsonrpc: rand() < 0.8 ? '2.0' : pick(),
              ...(rand() < 0.5 ? { id: rand() < 0.7 ? i : pick() } : {}),
              method: rand() < 0.9 ? method : pick(),
              params:
                rand() < 0.5 ? pick() : { plugin: pick(), state: pick(), tabs: pick(), dispatchId: pick() },
            })
      ext.sendRaw(frame)
    }
    ext.notify('ping', { ts: 99 })
    expect((await ext.waitFor('pong', (m) => m.params?.ts === 99)).params).toEqual({ ts: 99 })
    expect((await health()).status).toBe('ok')
    expect((await ext.request('config.getState', {})).result).toMatchObject({ plugins: [] })
  })

  it('survives a frame of several megabytes', async () => {
    ext = await FakeExtension.connect(fx.daemon)
    ext.notify('plugin.log', {
      entries: [{ plugin: 'notes', level: 'info', message: 'x'.repeat(5 * 1024 * 1024), ts: 1 }],
    })
    ext.notify('ping', { ts: 3 })
    expect((await ext.waitFor('pong')).params).toEqual({ ts: 3 })
  })

  it('closes a frame over 10 MB without taking the daemon down', async () => {
    const big = await FakeExtension.connect(fx.daemon)
    big.sendRaw(
      JSON.stringify({
        jsonrpc: '2.0',
        method: 'ping',
        params: { ts: 1, pad: 'x'.repeat(11 * 1024 * 1024) },
      }),
    )
    const { code } = await big.closed
    // 1009 "message too big" on both engines.
    expect(code).toBe(1009)
    ext = await FakeExtension.connect(fx.daemon)
    ext.notify('ping', { ts: 4 })
    expect((await ext.waitFor('pong')).params).toEqual({ ts: 4 })
  })

  it('closes a silent connection after the keepalive timeout (4001)', async () => {
    const silent = await FakeExtension.connect(fx.daemon)
    expect(await silent.closed).toEqual({ code: 4001, reason: 'keepalive timeout' })
    await expect.poll(async () => (await health()).extensionConnected).toBe(false)
  })

  it('keeps a connection that pings', async () => {
    ext = await FakeExtension.connect(fx.daemon)
    for (let i = 0; i < 4; i++) {
      await new Promise((r) => setTimeout(r, 600))
      ext.notify('ping', { ts: i })
    }
    expect(ext.ws.readyState).toBe(WebSocket.OPEN)
  })

  it('POST /extension/reload: 503 without an extension, 202 and extension.reload with one', async () => {
    await expect.poll(async () => (await health()).extensionConnected).toBe(false)
    const none = await fx.daemon.fetch('/extension/reload', { method: 'POST' })
    expect(none.status).toBe(503)
    expect(await none.json()).toEqual({
      error: { code: 'extension_not_connected', message: 'no extension is connected' },
    })
    ext = await FakeExtension.connect(fx.daemon)
    const res = await fx.daemon.fetch('/extension/reload', { method: 'POST' })
    expect(res.status).toBe(202)
    expect(await res.json()).toEqual({ ok: true })
    expect((await ext.waitFor('extension.reload')).params).toEqual({})
  })

  it('rate-limits /extension/reload to 10 per minute with 429 and Retry-After: 60', async () => {
    const statuses: number[] = []
    let last: Response | undefined
    for (let i = 0; i < 10; i++) {
      last = await fx.daemon.fetch('/extension/reload', { method: 'POST' })
      statuses.push(last.status)
    }
    expect(statuses.at(-1)).toBe(429)
    expect(last?.headers.get('retry-after')).toBe('60')
  })
})
