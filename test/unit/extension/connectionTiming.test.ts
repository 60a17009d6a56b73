import { createHmac } from 'node:crypto'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { CONNECTION_TIMING, DaemonConnection } from '../../../extension/background/connection'
import { PROOF_CONTEXT } from '../../../src/protocol/constants'

// The shipped keepalive clock: a ping every 20 s, a socket silent for 45 s given up with 4001. The
// end-to-end test (test/e2e/extension/silence.test.ts) runs real Chromium with a shorter clock; this
// one holds the shipped values and drives the real DaemonConnection on them with fake timers, a fake
// socket and the extension's files and the daemon's proof answered in place.
const SECRET = 'ab'.repeat(32)
/** Real time the connection may take to come up (it waits on the thread pool, slow on a loaded machine). */
const CONNECT_WAIT_MS = 30_000
const PORT = 41234

class FakeSocket {
  static all: FakeSocket[] = []
  sent: string[] = []
  closed: number | null = null
  onopen: (() => void) | null = null
  onmessage: ((ev: { data: unknown }) => void) | null = null
  onclose: ((ev: { code: number }) => void) | null = null
  constructor(readonly url: string) {
    FakeSocket.all.push(this)
    queueMicrotask(() => this.onopen?.())
  }
  send(text: string): void {
    this.sent.push(text)
  }
  close(code = 1000): void {
    this.closed ??= code
  }
}

function answer(url: string): Response {
  if (url.endsWith('/server.json')) return Response.json({ port: PORT })
  if (url.endsWith('/auth.json')) return Response.json({ secret: SECRET })
  const nonce = new URL(url).searchParams.get('nonce') ?? ''
  const proof = createHmac('sha256', SECRET).update(`${PROOF_CONTEXT}${nonce}`).digest('hex')
  return Response.json({ proof })
}

async function connected(): Promise<FakeSocket> {
  vi.useFakeTimers({ toFake: ['setTimeout', 'setInterval', 'clearTimeout', 'clearInterval', 'Date'] })
  vi.stubGlobal('chrome', { runtime: { getURL: (name: string) => `chrome-extension://x/${name}` } })
  vi.stubGlobal('fetch', (url: string) => Promise.resolve(answer(url)))
  vi.stubGlobal('WebSocket', FakeSocket)
  vi.stubGlobal(
    'CloseEvent',
    class extends Event {
      code: number
      constructor(type: string, init: { code: number }) {
        super(type)
        this.code = init.code
      }
    },
  )
  FakeSocket.all = []
  const conn = new DaemonConnection({
    onConnected: () => undefined,
    onDisconnected: () => undefined,
    onStatus: () => undefined,
    onNotification: () => undefined,
    onRequest: () => Promise.resolve(null),
  } as unknown as ConstructorParameters<typeof DaemonConnection>[0])
  conn.ensure()
  // The files, the proof (WebCrypto, on the thread pool) and the socket answer in real time; the fake
  // clock stays where it is. The wait is on the real clock (`performance` is not faked), generous for
  // a loaded machine.
  const deadline = performance.now() + CONNECT_WAIT_MS
  while (conn.status.status !== 'connected' && performance.now() < deadline)
    await new Promise((resolve) => setImmediate(resolve))
  expect(conn.status.status).toBe('connected')
  const [ws] = FakeSocket.all
  if (!ws) throw new Error('no socket opened')
  return ws
}

const pings = (ws: FakeSocket) => ws.sent.filter((t) => t.includes('"ping"')).length

describe('the keepalive clock the extension ships with', { timeout: 2 * CONNECT_WAIT_MS }, () => {
  afterEach(() => {
    vi.useRealTimers()
    vi.unstubAllGlobals()
  })

  it('is a ping every 20 s and a 45 s silence limit', () => {
    expect(CONNECTION_TIMING).toEqual({ pingIntervalMs: 20_000, silenceLimitMs: 45_000 })
  })

  it('pings every 20 s and closes a socket silent for more than 45 s with 4001, not before', async () => {
    const ws = await connected()
    await vi.advanceTimersByTimeAsync(19_999)
    expect(pings(ws)).toBe(0)
    await vi.advanceTimersByTimeAsync(1)
    expect(pings(ws)).toBe(1)
    // 40 s of silence: still open, a second ping sent.
    await vi.advanceTimersByTimeAsync(20_000)
    expect(pings(ws)).toBe(2)
    expect(ws.closed).toBeNull()
    // The check runs with each ping: at 60 s the socket has been silent for more than 45 s.
    await vi.advanceTimersByTimeAsync(20_000)
    expect(ws.closed).toBe(4001)
    expect(pings(ws)).toBe(2)
  })

  it('keeps a socket that hears from the daemon', async () => {
    const ws = await connected()
    for (let i = 0; i < 5; i++) {
      await vi.advanceTimersByTimeAsync(20_000)
      ws.onmessage?.({ data: JSON.stringify({ jsonrpc: '2.0', method: 'pong', params: { ts: Date.now() } }) })
    }
    expect(pings(ws)).toBe(5)
    expect(ws.closed).toBeNull()
  })
})
