// Benchmarks: latency of the daemon's hot paths on both HTTP engines, against the real daemon
// process (dist/server.js) on 127.0.0.1, a scripted extension over a real WebSocket, and the real
// MCP SDK client. Prints a table and saves bench/results.json. Never fails on time: figures only.
//
//   npm run bench            # both engines, default iteration counts
//   npm run bench -- --quick # fewer iterations (a smoke run)
import { spawn } from 'node:child_process'
import { request } from 'node:http'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, tmpdir, totalmem } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { performance } from 'node:perf_hooks'
import WebSocket from 'ws'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const quick = process.argv.includes('--quick')
const N = quick
  ? { health: 300, calls: 100, rejects: 100, ws: 300, conc: 200 }
  : { health: 3000, calls: 1000, rejects: 1000, ws: 3000, conc: 2000 }

function stats(samples) {
  const s = [...samples].sort((a, b) => a - b)
  const at = (q) => s[Math.min(s.length - 1, Math.floor(q * s.length))]
  const mean = s.reduce((a, b) => a + b, 0) / s.length
  const r = (x) => Math.round(x * 1000) / 1000
  return {
    n: s.length,
    meanMs: r(mean),
    p50Ms: r(at(0.5)),
    p95Ms: r(at(0.95)),
    p99Ms: r(at(0.99)),
    maxMs: r(s[s.length - 1]),
  }
}

async function time(n, fn) {
  for (let i = 0; i < Math.min(50, n); i++) await fn(i) // warm-up
  const samples = []
  for (let i = 0; i < n; i++) {
    const t0 = performance.now()
    await fn(i)
    samples.push(performance.now() - t0)
  }
  return stats(samples)
}

/** GET with headers fetch() will not send (Host); resolves with the status. */
function rawGet(port, path, headers) {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers, agent: false }, (res) => {
      res.resume()
      res.on('end', () => resolve(res.statusCode))
    })
    req.on('error', reject)
    req.end()
  })
}

/** A local plugin with one tool, as `bridge-plugin build` would leave it. */
function writePlugin(dir) {
  mkdirSync(join(dir, 'dist'), { recursive: true })
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'bridge-plugin-bench', version: '1.0.0' }))
  const tools = {
    name: 'bench',
    version: '1.0.0',
    sdkVersion: '1.0.0',
    displayName: 'Bench',
    urlPatterns: ['http://127.0.0.1/*'],
    tools: [
      {
        name: 'echo',
        displayName: 'Echo',
        description: 'Echoes its input',
        inputSchema: {
          type: 'object',
          properties: { text: { type: 'string', maxLength: 1000 } },
          required: ['text'],
          additionalProperties: false,
        },
      },
      {
        name: 'blocked',
        displayName: 'Blocked',
        description: 'Always off',
        inputSchema: { type: 'object', properties: {} },
      },
    ],
  }
  writeFileSync(join(dir, 'dist/tools.json'), JSON.stringify(tools))
  writeFileSync(join(dir, 'dist/adapter.iife.js'), '(()=>{})()\n')
}

async function startDaemon(engine) {
  const configDir = mkdtempSync(join(tmpdir(), 'bridge-bench-'))
  const pluginDir = join(configDir, 'bench-plugin')
  writePlugin(pluginDir)
  writeFileSync(
    join(configDir, 'config.json'),
    JSON.stringify({
      localPlugins: [pluginDir],
      permissions: { bench: { permission: 'auto', tools: { blocked: 'off' } } },
    }),
    { mode: 0o600 },
  )
  const env = {
    ...process.env,
    BRIDGE_CONFIG_DIR: configDir,
    BRIDGE_HTTP_ENGINE: engine,
    PORT: '0',
    BRIDGE_LOG_LEVEL: 'info',
    BRIDGE_SKIP_REGISTRY_DISCOVERY: '1',
    NO_COLOR: '1',
  }
  const proc = spawn(process.execPath, [join(root, 'dist/server.js')], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  const port = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`daemon did not start:\n${out}`)), 15_000)
    const onData = (d) => {
      out += d
      const m = out.match(/listening on http:\/\/127\.0\.0\.1:(\d+)/)
      if (m) {
        clearTimeout(timer)
        resolve(Number(m[1]))
      }
    }
    proc.stdout.on('data', onData)
    proc.stderr.on('data', onData)
    proc.once('exit', (code) => reject(new Error(`daemon exited with ${code}:\n${out}`)))
  })
  const secret = JSON.parse(readFileSync(join(configDir, 'extension/auth.json'), 'utf8')).secret
  return {
    port,
    secret,
    url: `http://127.0.0.1:${port}`,
    /** Warnings the daemon printed (a leak warning here would be the daemon's, not the client's). */
    warnings: () => out.split('\n').filter((line) => /Warning|leak/i.test(line)),
    async stop() {
      proc.kill('SIGTERM')
      await new Promise((r) => (proc.exitCode !== null ? r() : proc.once('exit', r)))
      rmSync(configDir, { recursive: true, force: true })
    },
  }
}

/** A minimal extension: answers every tool.dispatch at once and reports the bench tab as ready. */
async function connectExtension(daemon) {
  const ws = new WebSocket(`ws://127.0.0.1:${daemon.port}/ws`, ['bridge', daemon.secret])
  const pongs = []
  ws.on('message', (data) => {
    const m = JSON.parse(data.toString())
    if (m.method === 'sync.full') {
      const tabs = [{ tabId: 1, url: 'http://127.0.0.1/', title: 'bench', ready: true }]
      ws.send(
        JSON.stringify({
          jsonrpc: '2.0',
          method: 'tab.syncAll',
          params: { plugins: { bench: { state: 'ready', tabs } } },
        }),
      )
    } else if (m.method === 'tool.dispatch') {
      ws.send(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { output: { echoed: m.params.input } } }))
    } else if (m.method === 'pong') {
      pongs.shift()?.()
    }
  })
  await new Promise((resolve, reject) => {
    ws.once('open', resolve)
    ws.once('error', reject)
  })
  await new Promise((r) => setTimeout(r, 300)) // let sync.full / tab.syncAll settle
  return {
    ping: () =>
      new Promise((resolve) => {
        pongs.push(resolve)
        ws.send(JSON.stringify({ jsonrpc: '2.0', method: 'ping', params: { ts: Date.now() } }))
      }),
    close: () => ws.close(),
  }
}

async function benchEngine(engine) {
  const daemon = await startDaemon(engine)
  const auth = { authorization: `Bearer ${daemon.secret}` }
  const results = {}
  try {
    results.healthUnauthenticated = await time(N.health, () =>
      fetch(`${daemon.url}/health`).then((r) => r.arrayBuffer()),
    )
    results.healthAuthenticated = await time(N.health, () =>
      fetch(`${daemon.url}/health`, { headers: auth }).then((r) => r.arrayBuffer()),
    )
    results.refusedForeignHost = await time(N.health, async () => {
      const status = await rawGet(daemon.port, '/health', { host: `evil.example:${daemon.port}` })
      if (status !== 403) throw new Error(`a foreign Host was answered with ${status}, not 403`)
    })
    {
      // Throughput: 16 concurrent clients on /health for N.conc requests in all.
      const t0 = performance.now()
      let left = N.conc
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          while (left-- > 0)
            await fetch(`${daemon.url}/health`, { headers: auth }).then((r) => r.arrayBuffer())
        }),
      )
      results.healthThroughput = {
        n: N.conc,
        concurrency: 16,
        requestsPerSecond: Math.round(N.conc / ((performance.now() - t0) / 1000)),
      }
    }
    const ext = await connectExtension(daemon)
    results.wsPingPong = await time(N.ws, () => ext.ping())
    const transport = new StreamableHTTPClientTransport(new URL(`${daemon.url}/mcp`), {
      requestInit: { headers: auth },
    })
    const client = new Client({ name: 'bench', version: '1.0.0' })
    {
      const t0 = performance.now()
      await client.connect(transport)
      results.mcpInitialize = { n: 1, ms: Math.round((performance.now() - t0) * 1000) / 1000 }
    }
    results.mcpToolsList = await time(Math.min(N.calls, 300), () => client.listTools())
    results.toolCallAuto = await time(N.calls, (i) =>
      client.callTool({ name: 'bench_echo', arguments: { text: `hello ${i}` } }),
    )
    results.toolCallInvalidInput = await time(N.rejects, () =>
      client.callTool({ name: 'bench_echo', arguments: { text: 42 } }),
    )
    results.toolCallPermissionOff = await time(N.rejects, () =>
      client.callTool({ name: 'bench_blocked', arguments: {} }),
    )
    {
      const t0 = performance.now()
      const calls = Array.from({ length: 5 }, (_, i) =>
        client.callTool({ name: 'bench_echo', arguments: { text: `c${i}` } }),
      )
      await Promise.all(calls)
      results.toolCallFiveConcurrent = { n: 5, totalMs: Math.round((performance.now() - t0) * 1000) / 1000 }
    }
    await client.close()
    ext.close()
  } finally {
    results.daemonWarnings = daemon.warnings().length
    await daemon.stop()
  }
  return results
}

const report = {
  date: new Date().toISOString(),
  node: process.version,
  cpus: cpus().length,
  memoryGiB: Math.round(totalmem() / 2 ** 30),
  quick,
  engines: {},
}
for (const engine of ['node', 'uws']) {
  process.stdout.write(`bench: ${engine} engine ... `)
  report.engines[engine] = await benchEngine(engine)
  console.log('done')
}
for (const [engine, results] of Object.entries(report.engines)) {
  console.log(`\n${engine} engine`)
  for (const [name, r] of Object.entries(results)) {
    const line =
      typeof r === 'object' && 'p50Ms' in r
        ? `p50 ${r.p50Ms} ms  p95 ${r.p95Ms} ms  p99 ${r.p99Ms} ms  (n=${r.n})`
        : JSON.stringify(r)
    console.log(`  ${name.padEnd(24)} ${line}`)
  }
}
mkdirSync(join(root, 'bench'), { recursive: true })
const file = join(root, 'bench', quick ? 'results-quick.json' : 'results.json')
writeFileSync(file, JSON.stringify(report, null, 2) + '\n')
console.log(`\nsaved ${file}`)
