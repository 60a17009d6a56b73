// The servers under measurement (the floor and the real daemon, dist/server.js, on either engine), the
// scripted extension, and the MCP SDK client every target is measured with.
import { spawn } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { performance } from 'node:perf_hooks'
import WebSocket from 'ws'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const EXTENSION_ORIGIN = 'chrome-extension://acfdhdlkhjaeoaphklaaombmbgodghoh'
const FLOOR_SECRET = 'f'.repeat(64)
const TICK_MS = 10 // /proc/<pid>/stat counts CPU time in clock ticks (USER_HZ = 100 on Linux)

// A bench that stops on an error must not leave its servers running.
const live = new Set()
process.on('exit', () => {
  for (const proc of live) proc.kill('SIGKILL')
})

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })
}

/**
 * Spawns one server and resolves when GET /health answers 200, with the time that took from spawn.
 * `kind` is `floor` or an engine name; `probe` keeps the process for measurement (gc hook preloaded);
 * `nodeFlags` go to node before the script (e.g. `--cpu-prof`); `server` replaces dist/server.js, and
 * `engine` the engine named by `kind`.
 */
export async function startTarget({
  kind,
  configDir,
  toolsFile,
  probe = true,
  nodeFlags = [],
  server,
  engine = kind,
  /** Arguments after the script, `{port}` replaced by the port (e.g. the CLI's `start --port {port}`). */
  args = [],
  /** A command the server runs under (e.g. valgrind and its flags), or none. */
  wrap = [],
  /** How long the server may take to answer /health. */
  startLimitMs = 30_000,
}) {
  const port = await freePort()
  const flags = [...nodeFlags, ...(probe ? ['--expose-gc', '--import', join(root, 'bench/memHook.mjs')] : [])]
  const env = { ...process.env, PORT: String(port), NO_COLOR: '1' }
  let file
  if (kind === 'floor') {
    file = join(root, 'bench/floorServer.mjs')
    Object.assign(env, { BENCH_SECRET: FLOOR_SECRET, BENCH_TOOLS: toolsFile })
  } else {
    file = server ?? join(root, 'dist/server.js')
    Object.assign(env, {
      BRIDGE_CONFIG_DIR: configDir,
      BRIDGE_HTTP_ENGINE: engine,
      BRIDGE_SKIP_REGISTRY_DISCOVERY: '1',
    })
  }
  const t0 = performance.now()
  const scriptArgs = args.map((a) => a.replace('{port}', String(port)))
  const command = [...wrap, process.execPath, ...flags, file, ...scriptArgs]
  const proc = spawn(command[0], command.slice(1), {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  const memWaiters = []
  const onData = (d) => {
    out += d
    let at
    while ((at = out.indexOf('bench-mem ')) !== -1) {
      const end = out.indexOf('\n', at)
      if (end === -1) break
      const figures = JSON.parse(out.slice(at + 10, end))
      out = out.slice(0, at) + out.slice(end + 1)
      memWaiters.shift()?.(figures)
    }
    if (out.length > 20_000) out = out.slice(-10_000)
  }
  proc.stdout.on('data', onData)
  proc.stderr.on('data', onData)
  live.add(proc)
  const exited = new Promise((resolve) => proc.once('exit', resolve))
  void exited.then(() => live.delete(proc))
  const url = `http://127.0.0.1:${port}`
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`${kind} exited with ${proc.exitCode}:\n${out}`)
    const ok = await fetch(`${url}/health`).then(
      (r) => r.arrayBuffer().then(() => r.ok),
      () => false,
    )
    if (ok) break
    if (performance.now() - t0 > startLimitMs) throw new Error(`${kind} did not become healthy:\n${out}`)
    await new Promise((r) => setTimeout(r, 2))
  }
  const coldStartMs = performance.now() - t0
  const secret =
    kind === 'floor'
      ? FLOOR_SECRET
      : JSON.parse(readFileSync(join(configDir, 'extension/auth.json'), 'utf8')).secret
  return {
    kind,
    port,
    url,
    secret,
    pid: proc.pid,
    coldStartMs,
    output: () => out,
    /** User + system CPU time of the server process so far, in ms. */
    cpuMs() {
      const stat = readFileSync(`/proc/${proc.pid}/stat`, 'utf8')
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      return (Number(fields[11]) + Number(fields[12])) * TICK_MS
    },
    /**
     * CPU time of the server process so far, in ms, to the nanosecond: the sum of its threads'
     * on-CPU time (/proc/<pid>/task/<tid>/schedstat), for comparisons finer than cpuMs' 10 ms ticks.
     */
    cpuPreciseMs() {
      let ns = 0
      for (const tid of readdirSync(`/proc/${proc.pid}/task`))
        ns += Number(readFileSync(`/proc/${proc.pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0])
      return ns / 1e6
    },
    /** Full GC in the server, then its memory figures (bytes). */
    memory() {
      return new Promise((resolve) => {
        memWaiters.push(resolve)
        proc.kill('SIGUSR2')
      })
    },
    async stop() {
      if (proc.exitCode === null) proc.kill('SIGTERM')
      await exited
    },
  }
}

/**
 * The scripted extension: one real WebSocket on /ws that answers every `tool.dispatch` at once, and
 * after each `sync.full` reports every plugin's tab as ready. `connect()` resolves with the time from
 * opening the socket to the `sync.full` (null for the floor, which sends none). Like the real
 * extension it reconnects when the server drops the socket; `reconnects` counts those.
 */
/**
 * A target (startTarget's options) on `fixture` with the scripted extension connected and an MCP client,
 * warmed up by `warmup` calls. `call()` calls the next plugin's echo tool, cycling through the fixture's.
 */
export async function openCallTarget(fixture, { warmup = 200, ...options }) {
  const target = await startTarget({
    ...options,
    configDir: fixture.dir,
    toolsFile: fixture.toolsFile,
    probe: false,
  })
  const extension = createExtension(target)
  await extension.connect()
  const mcp = await connectClient(target)
  let n = 0
  const call = () =>
    mcp.client.callTool({
      name: `${fixture.names[n % fixture.names.length]}_echo`,
      arguments: { text: `hello ${n++}` },
    })
  for (let i = 0; i < warmup; i++) await call()
  return {
    target,
    mcp,
    call,
    async close() {
      await mcp.close()
      extension.close()
      await target.stop()
    },
  }
}

/** Runs `call(i)` for i = 0 .. count-1 with `concurrency` calls in flight at once (1: one after another). */
export async function callsInFlight(count, concurrency, call) {
  let next = 0
  const worker = async () => {
    while (next < count) await call(next++)
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
}

/**
 * A scripted extension on `/ws`. `answer(params)` gives a `tool.dispatch` its result (`{ output, origins? }`);
 * by default the call's input is echoed back.
 */
export function createExtension(target, { answer } = {}) {
  let ws
  let closing = false
  let syncWaiter
  const extension = {
    reconnects: 0,
    async connect() {
      const previous = ws
      const t0 = performance.now()
      const socket = new WebSocket(`ws://127.0.0.1:${target.port}/ws`, ['bridge', target.secret], {
        origin: EXTENSION_ORIGIN,
        perMessageDeflate: false,
      })
      ws = socket
      socket.on('message', (data) => onMessage(socket, data))
      socket.on('close', () => {
        if (closing || socket !== ws) return
        extension.reconnects++
        setTimeout(() => void extension.connect().catch(() => undefined), 100)
      })
      const synced =
        target.kind === 'floor' ? Promise.resolve() : new Promise((resolve) => (syncWaiter = resolve))
      await new Promise((resolve, reject) => {
        socket.once('open', resolve)
        socket.once('error', reject)
      })
      await synced
      const ms = target.kind === 'floor' ? null : performance.now() - t0
      syncWaiter = undefined
      previous?.close()
      // Let tab.syncAll reach the daemon's tab actors before calls start.
      await new Promise((r) => setTimeout(r, 50))
      return ms
    },
    close() {
      closing = true
      ws?.close()
    },
  }
  const onMessage = (socket, data) => {
    const m = JSON.parse(data.toString('utf8'))
    if (m.method === 'tool.dispatch') {
      socket.send(
        answer
          ? JSON.stringify({ jsonrpc: '2.0', id: m.id, result: answer(m.params) })
          : `{"jsonrpc":"2.0","id":${JSON.stringify(m.id)},"result":{"output":${JSON.stringify({ echoed: m.params.input })}}}`,
      )
    } else if (m.method === 'sync.full') {
      const tabs = {}
      for (const p of m.params.plugins)
        tabs[p.name] = {
          state: 'ready',
          tabs: [{ tabId: 1, url: `http://127.0.0.1/${p.name}/`, title: p.name, ready: true }],
        }
      socket.send(JSON.stringify({ jsonrpc: '2.0', method: 'tab.syncAll', params: { plugins: tabs } }))
      syncWaiter?.()
    }
  }
  return extension
}

/**
 * The MCP SDK client over Streamable HTTP. Its POSTs go out without the transport's abort signal: the
 * SDK hands every fetch the same long-lived signal, and each request adds a listener to it, which piles
 * up (and warns) over thousands of calls. The SSE GET keeps it, so close() still ends that stream.
 */
export async function connectClient(target) {
  const fetchWithoutSignal = (url, init) =>
    init?.method === 'POST' ? fetch(url, { ...init, signal: undefined }) : fetch(url, init)
  const transport = new StreamableHTTPClientTransport(new URL(`${target.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${target.secret}` } },
    fetch: fetchWithoutSignal,
  })
  const client = new Client({ name: 'bench', version: '1.0.0' })
  await client.connect(transport)
  return {
    client,
    /** One tools/list as a plain POST (no client-side parsing): its time to the last byte and its size. */
    async rawToolsList() {
      const t0 = performance.now()
      const response = await fetch(`${target.url}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${target.secret}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': transport.sessionId,
          'mcp-protocol-version': transport.protocolVersion ?? '2025-06-18',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 'bytes', method: 'tools/list' }),
      })
      const bytes = (await response.arrayBuffer()).byteLength
      return { ms: performance.now() - t0, bytes }
    },
    async close() {
      await transport.terminateSession().catch(() => undefined)
      await client.close()
    },
  }
}

/**
 * The MCP SDK v2 client pinned to the stateless revision (2026-07-28): no session, every request
 * with its `_meta`; the same shape as `connectClient` for the calls the bench makes.
 */
export async function connectStatelessClient(target) {
  const { Client: ClientV2, StreamableHTTPClientTransport: TransportV2 } =
    await import('@modelcontextprotocol/client')
  const fetchWithoutSignal = (url, init) =>
    init?.method === 'POST' ? fetch(url, { ...init, signal: undefined }) : fetch(url, init)
  const transport = new TransportV2(new URL(`${target.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${target.secret}` } },
    fetch: fetchWithoutSignal,
  })
  const client = new ClientV2(
    { name: 'bench-stateless', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  )
  await client.connect(transport)
  return { client, close: () => client.close() }
}
