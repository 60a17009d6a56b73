/**
 * `bridge start --inspect` / BRIDGE_INSPECT=1: the live actor system streamed to an inspector server
 * on this machine. Here the inspector server is a plain WebSocket server on a free loopback port.
 */
import { createServer } from 'node:net'
import { readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { WebSocketServer } from 'ws'
import { afterEach, describe, expect, it } from 'vitest'
import { runDaemonToExit, startDaemon, tempConfigDir, type RunningDaemon } from '../../helpers/daemon'
import { connectMcp } from '../../helpers/mcpClient'
import { runCli } from './runCli'

interface InspectorServer {
  url: string
  frames: Array<Record<string, unknown>>
  raw: string[]
  connections: number
  close(): Promise<void>
}

async function startInspectorServer(port = 0): Promise<InspectorServer> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port })
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()))
  const server: InspectorServer = {
    url: `ws://127.0.0.1:${(wss.address() as { port: number }).port}`,
    frames: [],
    raw: [],
    connections: 0,
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of wss.clients) client.terminate()
        wss.close(() => resolve())
      }),
  }
  wss.on('connection', (socket) => {
    server.connections++
    socket.on('message', (data: Buffer) => {
      const text = data.toString('utf8')
      server.raw.push(text)
      server.frames.push(JSON.parse(text) as Record<string, unknown>)
    })
  })
  return server
}

/** A loopback port with nothing listening on it (yet). */
async function freePort(): Promise<number> {
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', () => resolve()))
  const { port } = probe.address() as { port: number }
  await new Promise<void>((resolve) => probe.close(() => resolve()))
  return port
}

const actorNames = (server: InspectorServer) =>
  server.frames.filter((f) => f.type === '@xstate.actor').map((f) => String(f.name))
const eventTypes = (server: InspectorServer) =>
  server.frames
    .filter((f) => f.type === '@xstate.event')
    .map((f) => String((f.event as { type?: unknown } | undefined)?.type))

const daemons: RunningDaemon[] = []
const servers: InspectorServer[] = []
const dirs: string[] = []
afterEach(async () => {
  await Promise.all(daemons.splice(0).map((d) => d.stop()))
  await Promise.all(servers.splice(0).map((s) => s.close()))
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})
const freshDir = () => {
  const dir = tempConfigDir()
  dirs.push(dir)
  return dir
}

describe('bridge start --inspect', () => {
  it('streams the actor system, its events and new sessions to the inspector, with the secret redacted', async () => {
    const inspector = await startInspectorServer()
    servers.push(inspector)
    const daemon = await startDaemon({
      via: 'cli',
      args: ['--port', '0', '--inspect'],
      env: { BRIDGE_INSPECT_URL: inspector.url },
    })
    daemons.push(daemon)
    await daemon.waitForOutput(/streaming actor events to ws:\/\/127\.0\.0\.1/)
    await expect
      .poll(() => actorNames(inspector))
      .toEqual(expect.arrayContaining(['configStore', 'reload', 'extensionConnection']))

    expect((await daemon.fetch('/reload', { method: 'POST' })).status).toBe(200)
    await expect.poll(() => eventTypes(inspector)).toEqual(expect.arrayContaining(['reload.request']))
    // A tool call is an actor of the same system (its audit record is an action of it; an MCP session
    // is a plain object).
    const mcp = await connectMcp({ url: daemon.url, secret: daemon.secret })
    const call = await mcp.client.callTool({ name: 'browser_list_tabs', arguments: {} })
    expect(call.isError).toBe(true)
    await mcp.close()
    await expect.poll(() => actorNames(inspector)).toEqual(expect.arrayContaining(['toolInvocation']))

    for (const frame of inspector.frames)
      expect(frame).toMatchObject({ type: expect.stringMatching(/^@xstate\./), _version: expect.any(String) })
    expect(inspector.raw.join('\n')).not.toContain(daemon.secret)
    expect(inspector.connections).toBe(1)
  })

  it('starts without an inspector server, keeps the events, and delivers them once one appears', async () => {
    const port = await freePort()
    const daemon = await startDaemon({
      via: 'cli',
      args: ['--port', '0'],
      env: { BRIDGE_INSPECT: '1', BRIDGE_INSPECT_URL: `ws://127.0.0.1:${port}` },
    })
    daemons.push(daemon)
    await daemon.waitForOutput(
      /cannot reach the inspector at ws:\/\/127\.0\.0\.1:\d+\/ \(.*\); retrying until it is there/,
    )
    expect((await daemon.fetch('/health')).status).toBe(200)
    const inspector = await startInspectorServer(port)
    servers.push(inspector)
    // The actors registered before the server existed arrive from the buffer.
    await expect
      .poll(() => actorNames(inspector), { timeout: 10_000 })
      .toEqual(expect.arrayContaining(['configStore', 'reload']))
    // Stopping never waits for the inspector.
    expect(await daemon.stop()).toBe(0)
    expect(daemon.output().match(/cannot reach the inspector/g)).toHaveLength(1)
  })

  it('passes --inspect on to a --background daemon', async () => {
    const inspector = await startInspectorServer()
    servers.push(inspector)
    const dir = freshDir()
    const started = await runCli(['start', '--background', '--port', '0', '--inspect'], dir, {
      BRIDGE_INSPECT_URL: inspector.url,
    })
    try {
      expect(started.code).toBe(0)
      await expect
        .poll(() => actorNames(inspector), { timeout: 10_000 })
        .toEqual(expect.arrayContaining(['configStore']))
    } finally {
      const stopped = await runCli(['stop'], dir)
      expect(stopped.code).toBe(0)
    }
    expect(readFileSync(join(dir, 'server.log'), 'utf8')).toContain(
      `streaming actor events to ${inspector.url}/`,
    )
  })

  it('sends nothing without --inspect or BRIDGE_INSPECT=1', async () => {
    const inspector = await startInspectorServer()
    servers.push(inspector)
    const daemon = await startDaemon({
      via: 'cli',
      args: ['--port', '0'],
      env: { BRIDGE_INSPECT: '0', BRIDGE_INSPECT_URL: inspector.url },
    })
    daemons.push(daemon)
    expect((await daemon.fetch('/reload', { method: 'POST' })).status).toBe(200)
    expect(await daemon.stop()).toBe(0)
    expect(inspector.connections).toBe(0)
    expect(daemon.output()).not.toContain('inspect')
  })

  it.each([
    [
      'a host off this machine',
      { BRIDGE_INSPECT_URL: 'ws://example.com:8080' },
      /BRIDGE_INSPECT_URL must be a ws:\/\/ address on this machine \(127\.0\.0\.1, localhost or \[::1\]\); got "ws:\/\/example\.com:8080"/,
    ],
    [
      'a secure URL',
      { BRIDGE_INSPECT_URL: 'wss://127.0.0.1:8080' },
      /BRIDGE_INSPECT_URL must be a ws:\/\/ address on this machine/,
    ],
    [
      'credentials in the URL',
      { BRIDGE_INSPECT_URL: 'ws://user:pw@127.0.0.1:8080' },
      /must be a ws:\/\/ address on this machine \(.*\); got "ws:\/\/127\.0\.0\.1:8080"/,
    ],
    [
      'no URL at all',
      { BRIDGE_INSPECT_URL: 'not a url' },
      /BRIDGE_INSPECT_URL is not a URL \(got "not a url"\)/,
    ],
    [
      'a BRIDGE_INSPECT that is not 0 or 1',
      { BRIDGE_INSPECT: 'yes' },
      /BRIDGE_INSPECT must be 0 or 1 \(got "yes"\)/,
    ],
  ])('refuses to start with %s', async (_what, env, message) => {
    for (const via of ['cli', 'server'] as const) {
      const configDir = freshDir()
      const args = via === 'cli' ? ['--port', '0', '--inspect'] : ['--inspect']
      const { code, output } = await runDaemonToExit({ via, configDir, args, env: { PORT: '0', ...env } })
      expect(code, output).toBe(1)
      expect(output).toMatch(message)
      expect(output).not.toContain('pw@')
    }
  })
})
