/**
 * The two engines behind the same front, in this process, on 127.0.0.1: bodies in (counted against
 * the cap), text replies and event streams out, clients that leave or stop reading, WebSockets, rate
 * limits, errors and the connection cap. Real sockets and real
 * clients; only the route table is made up for the test.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import WebSocket from 'ws'
import { isBridgeError } from '../../../src/errors'
import { createEngine } from '../../../src/http/createEngine'
import type { EngineLimits, EngineSocket, HttpEngine, HttpReply, HttpRequest } from '../../../src/http/engine'
import { createFront } from '../../../src/http/front'
import { createRateLimiter } from '../../../src/http/rateLimit'
import { jsonResponse } from '../../../src/http/responses'
import type { Route } from '../../../src/http/route'
import { EXTENSION_ORIGIN } from '../../../src/protocol/constants'
import { ENGINES } from '../../helpers/daemon'
import { rawRequest } from './rawHttp'

const SECRET = 'a'.repeat(64)
const MB = 1024 * 1024
const LIMITS: EngineLimits = {
  maxBodyBytes: 10 * MB,
  maxPayloadBytes: 10 * MB,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  maxConnections: 256,
}

interface Served {
  port: number
  url: string
  engine: HttpEngine
}

const running: HttpEngine[] = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((engine) => engine.stop()))
})

async function serve(
  engineName: 'node' | 'uws',
  routes: Route[],
  limits: Partial<EngineLimits> = {},
): Promise<Served> {
  let port = 0
  const all = { ...LIMITS, ...limits }
  const front = createFront({
    routes,
    port: () => port,
    secret: () => SECRET,
    maxBodyBytes: all.maxBodyBytes,
  })
  const engine = createEngine(engineName, { handler: front.handle, upgrade: front.upgrade, limits: all })
  running.push(engine)
  port = (await engine.start({ host: '127.0.0.1', port: 0 })).port
  return { port, url: `http://127.0.0.1:${port}`, engine }
}

const auth = { authorization: `Bearer ${SECRET}` }
const headLines = (port: number, method: string, path: string, extra: string[] = []) => [
  `${method} ${path} HTTP/1.1`,
  `Host: 127.0.0.1:${port}`,
  `Authorization: Bearer ${SECRET}`,
  ...extra,
  'Connection: close',
]

describe.each(ENGINES)('the %s engine', (engineName) => {
  it('passes a streamed request body through and counts it', async () => {
    const server = await serve(engineName, [
      {
        path: '/echo',
        auth: 'required',
        methods: { POST: async (req) => jsonResponse({ bytes: Buffer.byteLength(await req.text()) }) },
      },
    ])
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 8; i++) controller.enqueue(new Uint8Array(256 * 1024).fill(i))
        controller.close()
      },
    })
    // @ts-expect-error duplex is required by Node's fetch for streamed bodies
    const res = await fetch(`${server.url}/echo`, { method: 'POST', headers: auth, body, duplex: 'half' })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ bytes: 2 * MB })
  })

  it('accepts a body of exactly 10 MB and refuses a declared 10 MB + 1 with 413 before reading it', async () => {
    let calls = 0
    const server = await serve(engineName, [
      {
        path: '/echo',
        auth: 'required',
        methods: {
          POST: async (req) => (calls++, jsonResponse({ bytes: Buffer.byteLength(await req.text()) })),
        },
      },
    ])
    const exact = await fetch(`${server.url}/echo`, {
      method: 'POST',
      headers: auth,
      body: new Uint8Array(10 * MB),
    })
    expect(exact.status).toBe(200)
    expect(await exact.json()).toEqual({ bytes: 10 * MB })
    const over = await rawRequest(
      server.port,
      headLines(server.port, 'POST', '/echo', [`Content-Length: ${10 * MB + 1}`]),
    )
    expect(over.status).toBe(413)
    expect(JSON.parse(over.body)).toEqual({
      error: { code: 'payload_too_large', message: expect.any(String) },
    })
    expect(calls).toBe(1)
  })

  it('refuses a chunked body that grows past the cap with 413 while it streams', async () => {
    let handlerSawError: unknown
    const server = await serve(engineName, [
      {
        path: '/echo',
        auth: 'required',
        methods: {
          POST: async (req) => {
            try {
              await req.text()
            } catch (error) {
              handlerSawError = error
              throw error
            }
            return jsonResponse({ ok: true })
          },
        },
      },
    ])
    const chunk = Buffer.alloc(MB, 0x62)
    const framed = Buffer.concat([
      Buffer.from(`${chunk.length.toString(16)}\r\n`),
      chunk,
      Buffer.from('\r\n'),
    ])
    const res = await rawRequest(
      server.port,
      headLines(server.port, 'POST', '/echo', ['Transfer-Encoding: chunked']),
      Array(12).fill(framed),
    )
    expect(res.status).toBe(413)
    expect(JSON.parse(res.body)).toEqual({
      error: { code: 'payload_too_large', message: expect.any(String) },
    })
    await vi.waitFor(() => expect(handlerSawError).toBeDefined())
  })

  it('answers before reading the body (401, or a route that ignores it) and keeps serving', async () => {
    const server = await serve(engineName, [
      { path: '/ignore', auth: 'required', methods: { POST: () => jsonResponse({ ok: true }) } },
    ])
    const chunk = Buffer.alloc(MB, 0x64)
    const framed = Buffer.concat([
      Buffer.from(`${chunk.length.toString(16)}\r\n`),
      chunk,
      Buffer.from('\r\n'),
    ])
    const chunkedHead = (auth: boolean) => [
      'POST /ignore HTTP/1.1',
      `Host: 127.0.0.1:${server.port}`,
      ...(auth ? [`Authorization: Bearer ${SECRET}`] : []),
      'Transfer-Encoding: chunked',
      'Connection: close',
    ]
    const unauthenticated = await rawRequest(server.port, chunkedHead(false), Array(15).fill(framed), 5_000)
    expect(unauthenticated.status).toBe(401)
    const ignored = await rawRequest(server.port, chunkedHead(true), Array(15).fill(framed), 5_000)
    expect([200, 413]).toContain(ignored.status)
    const after = await fetch(`${server.url}/ignore`, { method: 'POST', headers: auth, body: 'x' })
    expect(await after.json()).toEqual({ ok: true })
  })

  it('cuts off an event stream whose client stopped reading, past 16 MB unread', async () => {
    let written = 0
    let closed = false
    const piece = `data: ${'c'.repeat(64 * 1024)}\n\n`
    const server = await serve(engineName, [
      {
        path: '/stream',
        auth: 'required',
        methods: {
          GET: () => ({
            status: 200,
            headers: { 'content-type': 'text/event-stream' },
            body: {
              open(sink) {
                sink.onClose(() => (closed = true))
                const more = () => {
                  if (closed || written > 64 * MB) return
                  for (let i = 0; i < 16; i++) sink.write(piece)
                  written += 16 * piece.length
                  setImmediate(more)
                }
                more()
              },
            },
          }),
        },
      },
    ])
    const { connect } = await import('node:net')
    const socket = connect(server.port, '127.0.0.1')
    socket.write(`${headLines(server.port, 'GET', '/stream').join('\r\n')}\r\n\r\n`)
    socket.once('data', () => socket.pause())
    socket.on('error', () => undefined)
    await vi.waitFor(() => expect(closed).toBe(true), { timeout: 20_000 })
    // Cut off well before the 64 MB the route would have written, and the socket is gone.
    expect(written).toBeLessThan(48 * MB)
    const gone = new Promise<void>((resolve) => socket.once('close', () => resolve()))
    socket.resume()
    await gone
  }, 30_000)

  it('tells an event stream when its client goes away, and marks the request aborted', async () => {
    let closed = false
    let request: HttpRequest | undefined
    const server = await serve(engineName, [
      {
        path: '/events',
        auth: 'required',
        methods: {
          GET: (req) => {
            request = req
            return {
              status: 200,
              headers: { 'content-type': 'text/event-stream' },
              body: {
                open(sink) {
                  sink.onClose(() => (closed = true))
                  sink.write('event: ready\ndata: {}\n\n')
                },
              },
            }
          },
        },
      },
    ])
    const controller = new AbortController()
    const res = await fetch(`${server.url}/events`, { headers: auth, signal: controller.signal })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/event-stream')
    const reader = res.body!.getReader()
    let text = ''
    while (!text.includes('event: ready')) text += new TextDecoder().decode((await reader.read()).value)
    expect(request?.aborted).toBe(false)
    controller.abort()
    await vi.waitFor(() => expect(closed).toBe(true))
    expect(request?.aborted).toBe(true)
  })

  it('delivers the headers of an event stream that has not produced an event yet', async () => {
    const server = await serve(engineName, [
      {
        path: '/quiet',
        auth: 'required',
        methods: {
          GET: () => ({
            status: 200,
            headers: { 'content-type': 'text/event-stream' },
            body: { open: () => undefined },
          }),
        },
      },
    ])
    const controller = new AbortController()
    const res = await fetch(`${server.url}/quiet`, { headers: auth, signal: controller.signal })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/event-stream')
    controller.abort()
  })

  it('ends open event streams, telling them, when the engine stops', async () => {
    let closed = false
    const server = await serve(engineName, [
      {
        path: '/events',
        auth: 'required',
        methods: {
          GET: () => ({
            status: 200,
            headers: { 'content-type': 'text/event-stream' },
            body: {
              open(sink) {
                sink.onClose(() => (closed = true))
                sink.write('data: 1\n\n')
              },
            },
          }),
        },
      },
    ])
    const res = await fetch(`${server.url}/events`, { headers: auth })
    const reader = res.body!.getReader()
    await reader.read()
    await server.engine.stop()
    let ended = false
    while (!ended)
      ended = await reader.read().then(
        (r) => r.done,
        () => true,
      )
    expect(ended).toBe(true)
    await vi.waitFor(() => expect(closed).toBe(true))
    await expect(fetch(`${server.url}/events`, { headers: auth })).rejects.toThrow()
  })

  it('applies a route rate limit after auth: 429 with Retry-After: 60', async () => {
    const server = await serve(engineName, [
      {
        path: '/admin',
        auth: 'required',
        rateLimit: createRateLimiter({ limit: 3 }),
        methods: { POST: () => jsonResponse({ ok: true }) },
      },
    ])
    for (let i = 0; i < 5; i++)
      expect((await fetch(`${server.url}/admin`, { method: 'POST' })).status).toBe(401)
    const statuses: number[] = []
    for (let i = 0; i < 3; i++)
      statuses.push((await fetch(`${server.url}/admin`, { method: 'POST', headers: auth })).status)
    expect(statuses).toEqual([200, 200, 200])
    const limited = await fetch(`${server.url}/admin`, { method: 'POST', headers: auth })
    expect(limited.status).toBe(429)
    expect(limited.headers.get('retry-after')).toBe('60')
    expect(await limited.json()).toEqual({ error: { code: 'rate_limited', message: expect.any(String) } })
  })

  it('turns a thrown error into a bare 500 internal_error', async () => {
    const server = await serve(engineName, [
      {
        path: '/boom',
        auth: 'required',
        methods: { GET: () => Promise.reject(new Error('database password is hunter2')) },
      },
    ])
    const res = await fetch(`${server.url}/boom`, { headers: auth })
    expect(res.status).toBe(500)
    const body = (await res.json()) as { error: { code: string; message: string } }
    expect(body.error.code).toBe('internal_error')
    expect(JSON.stringify(body)).not.toContain('hunter2')
  })

  it('cuts off a client that does not finish sending its body within the request timeout', async () => {
    const server = await serve(
      engineName,
      [
        {
          path: '/echo',
          auth: 'required',
          methods: { POST: async (req) => jsonResponse({ bytes: Buffer.byteLength(await req.text()) }) },
        },
      ],
      { requestTimeoutMs: 1_500, headersTimeoutMs: 1_500 },
    )
    const res = await rawRequest(
      server.port,
      headLines(server.port, 'POST', '/echo', ['Content-Length: 100']),
      [Buffer.from('only ten b')],
      15_000,
    )
    // node answers 408; uWS closes the connection. Either way the handler never answered 200.
    expect([0, 408]).toContain(res.status)
  })

  it('closes a connection whose headers do not arrive in time', async () => {
    // node uses the configured limit; uWS has a fixed 10 s idle limit while it waits for headers.
    const server = await serve(engineName, [], { headersTimeoutMs: 1_000, requestTimeoutMs: 1_000 })
    const { connect } = await import('node:net')
    const socket = connect(server.port, '127.0.0.1')
    socket.write(`GET /health HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n`)
    let received = ''
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')))
    const closed = await new Promise<boolean>((resolve) => {
      socket.once('close', () => resolve(true))
      setTimeout(() => resolve(false), 20_000)
    })
    socket.destroy()
    expect(closed).toBe(true)
    expect(received).not.toMatch(/^HTTP\/1\.1 200/)
  }, 30_000)

  it('refuses connections beyond the cap', async () => {
    const releases: (() => void)[] = []
    const server = await serve(
      engineName,
      [
        {
          path: '/hang',
          auth: 'required',
          methods: {
            GET: () => new Promise<HttpReply>((resolve) => releases.push(() => resolve(jsonResponse({})))),
          },
        },
      ],
      { maxConnections: 3 },
    )
    const { connect } = await import('node:net')
    const held = Array.from({ length: 3 }, () => {
      const socket = connect(server.port, '127.0.0.1')
      socket.write(`${headLines(server.port, 'GET', '/hang').join('\r\n')}\r\n\r\n`)
      return socket
    })
    await new Promise((resolve) => setTimeout(resolve, 300))
    const res = await rawRequest(server.port, headLines(server.port, 'GET', '/hang'), [], 5_000)
    for (const socket of held) socket.destroy()
    for (const release of releases) release()
    // node drops the extra socket; uWS answers 503 service_unavailable.
    expect([0, 503]).toContain(res.status)
    if (res.status === 503)
      expect(JSON.parse(res.body)).toMatchObject({ error: { code: 'service_unavailable' } })
  })

  it('rejects a second engine on a port in use with port_in_use', async () => {
    const first = await serve(engineName, [])
    const front = createFront({ routes: [], port: () => first.port, secret: () => SECRET, maxBodyBytes: MB })
    const second = createEngine(engineName, { handler: front.handle, upgrade: front.upgrade, limits: LIMITS })
    const error = await second.start({ host: '127.0.0.1', port: first.port }).catch((e: unknown) => e)
    expect(isBridgeError(error, 'port_in_use')).toBe(true)
    expect((error as Error).message).toContain(String(first.port))
  })

  describe('WebSockets', () => {
    async function echoServer(onSocket: (socket: EngineSocket) => void = () => undefined) {
      return serve(engineName, [
        {
          path: '/ws',
          auth: 'required',
          upgrade: () => ({
            onOpen: (socket) => {
              onSocket(socket)
              socket.onMessage((text) => {
                if (text === 'close please') socket.close(4001, 'asked to')
                else socket.send(`echo:${text}:${typeof socket.bufferedAmount}`)
              })
            },
          }),
        },
      ])
    }
    const open = (port: number) =>
      new Promise<WebSocket>((resolve, reject) => {
        const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`, ['bridge', SECRET], {
          headers: { origin: EXTENSION_ORIGIN },
        })
        ws.once('open', () => resolve(ws))
        ws.once('error', reject)
      })
    const closed = (ws: WebSocket) =>
      new Promise<{ code: number; reason: string }>((resolve) =>
        ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
      )
    const nextMessage = (ws: WebSocket) =>
      new Promise<string>((resolve) => ws.once('message', (data: Buffer) => resolve(data.toString('utf8'))))

    it('carries text frames both ways and selects the bridge subprotocol', async () => {
      const server = await echoServer()
      const ws = await open(server.port)
      expect(ws.protocol).toBe('bridge')
      ws.send('héllo')
      expect(await nextMessage(ws)).toBe('echo:héllo:number')
      ws.close()
    })

    it('passes the server-side close code and reason to the client', async () => {
      const server = await echoServer()
      const ws = await open(server.port)
      const result = closed(ws)
      ws.send('close please')
      expect(await result).toEqual({ code: 4001, reason: 'asked to' })
    })

    it('tells the server when the client closes', async () => {
      let serverSaw: { code: number; reason: string } | undefined
      const server = await echoServer((socket) =>
        socket.onClose((code, reason) => (serverSaw = { code, reason })),
      )
      const ws = await open(server.port)
      ws.close(4100, 'bye')
      await vi.waitFor(() => expect(serverSaw).toEqual({ code: 4100, reason: 'bye' }))
    })

    it('accepts a message just under 10 MB and closes the socket on one over 10 MB', async () => {
      const server = await echoServer()
      const ws = await open(server.port)
      ws.send('x'.repeat(10 * MB - 64))
      expect((await nextMessage(ws)).length).toBe(10 * MB - 64 + 'echo::number'.length)
      const result = closed(ws)
      ws.send('x'.repeat(10 * MB + 1))
      expect((await result).code).toBe(1009)
    })

    it('still closes on a message over twice the limit, and keeps serving', async () => {
      const server = await echoServer()
      const ws = await open(server.port)
      const result = closed(ws)
      ws.send('x'.repeat(20 * MB + 1))
      // node answers 1009; uWS drops a message past its own buffer without a close frame (1006).
      expect([1009, 1006]).toContain((await result).code)
      const next = await open(server.port)
      next.send('again')
      expect(await nextMessage(next)).toBe('echo:again:number')
      next.close()
    })

    it('survives a socket listener that throws', async () => {
      const server = await echoServer((socket) =>
        socket.onMessage(() => {
          throw new Error('listener bug')
        }),
      )
      const ws = await open(server.port)
      ws.send('boom')
      await new Promise((resolve) => setTimeout(resolve, 100))
      const again = await open(server.port)
      expect(again.protocol).toBe('bridge')
      ws.close()
      again.close()
    })

    it('closes the socket on a binary frame (1003)', async () => {
      const server = await echoServer()
      const ws = await open(server.port)
      const result = closed(ws)
      ws.send(Buffer.from([1, 2, 3]), { binary: true })
      expect((await result).code).toBe(1003)
    })

    it('closes open sockets with 1001 when the engine stops', async () => {
      const server = await echoServer()
      const ws = await open(server.port)
      const result = closed(ws)
      await server.engine.stop()
      expect((await result).code).toBe(1001)
    })
  })
})

describe.each(ENGINES)('what the %s engine writes', (engineName) => {
  const firstChunk = async (port: number, lines: string[]) => {
    const { connect } = await import('node:net')
    const socket = connect(port, '127.0.0.1')
    const first = new Promise<string>((resolve) => socket.once('data', (chunk) => resolve(chunk.toString())))
    socket.write(`${lines.join('\r\n')}\r\n\r\n`)
    const received = await first
    socket.destroy()
    return received
  }

  it('sends a text reply, head and body, in one write', async () => {
    const server = await serve(engineName, [
      { path: '/answer', auth: 'required', methods: { POST: () => jsonResponse({ ok: true }) } },
    ])
    const received = await firstChunk(
      server.port,
      headLines(server.port, 'POST', '/answer', ['Content-Length: 0']),
    )
    expect(received).toMatch(/^HTTP\/1\.1 200/)
    expect(received).toMatch(/content-length: 11/i)
    expect(received.endsWith('{"ok":true}')).toBe(true)
  })

  it('sends the head of an event stream together with the events written in the same turn', async () => {
    const server = await serve(engineName, [
      {
        path: '/answer',
        auth: 'required',
        methods: {
          POST: () => ({
            status: 200,
            headers: { 'content-type': 'text/event-stream' },
            body: {
              open(sink) {
                sink.write('event: message\ndata: {"progress":1}\n\n')
                sink.write('event: message\ndata: {"ok":true}\n\n')
                sink.end()
              },
            },
          }),
        },
      },
    ])
    const received = await firstChunk(
      server.port,
      headLines(server.port, 'POST', '/answer', ['Content-Length: 0']),
    )
    expect(received).toMatch(/^HTTP\/1\.1 200/)
    expect(received).toContain('data: {"progress":1}')
    expect(received).toContain('data: {"ok":true}')
  })
})
