// `npm run bench -- --stateless [--quick]`: the call path of a 2026-07-28 client (no session, `_meta` on
// every request) beside a 2025-11-25 client in a session, on the same daemon (node engine) and the same
// scripted extension, in alternating blocks so the machine's drift hits all alike. Two pairs: the SDK
// clients (v1 in a session, v2 stateless: what an agent runs, each library's own cost included), and
// one plain HTTP client speaking both (the same fetch code: the daemon's two paths alone), each with
// the daemon's CPU per call (on-CPU time of its threads). Prints p50 / p99 of sequential echo calls
// and saves bench/results-stateless.json. Never fails on time.
import { rmSync, writeFileSync } from 'node:fs'
import { cpus, loadavg } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { performance } from 'node:perf_hooks'
import { createConfigDir, pluginName } from './fixtures.mjs'
import { connectClient, connectStatelessClient, createExtension, startTarget } from './targets.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const quick = process.argv.includes('--quick')
const ROUNDS = quick ? 4 : 12
const BLOCK = quick ? 100 : 250
const round3 = (x) => Math.round(x * 1000) / 1000
const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]
const latency = (samples) => {
  const s = [...samples].sort((a, b) => a - b)
  return { n: s.length, p50Ms: round3(quantile(s, 0.5)), p99Ms: round3(quantile(s, 0.99)) }
}

const startedAt = performance.now()
const dir = createConfigDir(1)
const target = await startTarget({ kind: 'node', configDir: dir.dir, probe: false })
const ext = createExtension(target)
await ext.connect()
const plugin = pluginName(0)
const clients = {
  session: await connectClient(target),
  stateless: await connectStatelessClient(target),
  'session (HTTP)': await plainClient(target, 'session'),
  'stateless (HTTP)': await plainClient(target, 'stateless'),
}
const samples = Object.fromEntries(Object.keys(clients).map((mode) => [mode, []]))
const cpuMs = Object.fromEntries(Object.keys(clients).map((mode) => [mode, 0]))
try {
  for (const mode of Object.keys(clients))
    // warm-up
    for (let i = 0; i < 50; i++)
      await clients[mode].client.callTool({ name: `${plugin}_echo`, arguments: { text: 'warm' } })
  for (let round = 0; round < ROUNDS; round++) {
    const modes = Object.keys(clients)
    const order = round % 2 === 0 ? modes : [...modes].reverse()
    for (const mode of order) {
      const cpuBefore = target.cpuPreciseMs()
      for (let i = 0; i < BLOCK; i++) {
        const t0 = performance.now()
        const result = await clients[mode].client.callTool({
          name: `${plugin}_echo`,
          arguments: { text: `hello ${i}` },
        })
        samples[mode].push(performance.now() - t0)
        if (result.isError) throw new Error(`${mode}: ${JSON.stringify(result.content)}`)
      }
      cpuMs[mode] += target.cpuPreciseMs() - cpuBefore
    }
  }
} finally {
  for (const c of Object.values(clients)) await c.close().catch(() => undefined)
  ext.close()
  await target.stop()
  rmSync(dir.dir, { recursive: true, force: true })
}
const rows = Object.fromEntries(
  Object.entries(samples).map(([mode, s]) => [
    mode,
    { ...latency(s), serverCpuPerCallMs: round3(cpuMs[mode] / s.length) },
  ]),
)
const ratio = round3(rows.stateless.p50Ms / rows.session.p50Ms)
const plainRatio = round3(rows['stateless (HTTP)'].p50Ms / rows['session (HTTP)'].p50Ms)
const cpuRatio = round3(
  rows['stateless (HTTP)'].serverCpuPerCallMs / rows['session (HTTP)'].serverCpuPerCallMs,
)
console.log(
  `\n${cpus().length} x ${cpus()[0]?.model}, node ${process.version}, load ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
)
console.log('sequential echo calls, one daemon (node engine)')
for (const [mode, r] of Object.entries(rows))
  console.log(
    `  ${mode.padEnd(16)} p50 ${r.p50Ms} ms  p99 ${r.p99Ms} ms  daemon CPU ${r.serverCpuPerCallMs} ms/call  (${r.n} calls)`,
  )
console.log(`  SDK clients: stateless p50 / session p50 = ${ratio}`)
console.log(`  one HTTP client: stateless p50 / session p50 = ${plainRatio}, daemon CPU per call ${cpuRatio}`)
const file = join(root, 'bench', 'results-stateless.json')
writeFileSync(
  file,
  JSON.stringify(
    {
      quick,
      durationS: Math.round((performance.now() - startedAt) / 1000),
      load: loadavg(),
      rows,
      ratio,
      plainRatio,
      cpuRatio,
    },
    null,
    2,
  ) + '\n',
)
console.log(`saved ${file}`)

/**
 * A client of plain HTTP requests (fetch, no SDK) for either path, so the two differ only in what the
 * daemon does: a session opened with `initialize`, or stateless requests with `_meta` and the headers.
 */
async function plainClient(target, kind) {
  const url = `${target.url}/mcp`
  const base = {
    authorization: `Bearer ${target.secret}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  }
  const post = async (headers, body) => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { ...base, ...headers },
      body: JSON.stringify(body),
    })
    const text = await response.text()
    return { response, json: text ? JSON.parse(text) : undefined }
  }
  let headersFor
  let paramsFor
  if (kind === 'session') {
    const init = await post(
      {},
      {
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'bench-http', version: '1.0.0' },
        },
      },
    )
    const session = init.response.headers.get('mcp-session-id')
    const headers = { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' }
    await post(headers, { jsonrpc: '2.0', method: 'notifications/initialized' })
    headersFor = () => headers
    paramsFor = (params) => params
  } else {
    const meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
      'io.modelcontextprotocol/clientInfo': { name: 'bench-http', version: '1.0.0' },
    }
    headersFor = (name) => ({
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': name,
    })
    paramsFor = (params) => ({ ...params, _meta: meta })
  }
  let id = 0
  return {
    client: {
      async callTool(params) {
        const { json } = await post(headersFor(params.name), {
          jsonrpc: '2.0',
          id: ++id,
          method: 'tools/call',
          params: paramsFor(params),
        })
        if (!json?.result) throw new Error(`${kind}: ${JSON.stringify(json)}`)
        return json.result
      },
    },
    close: async () => undefined,
  }
}
