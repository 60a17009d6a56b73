// `npm run bench -- --stateless [--quick]`: the call path of a 2026-07-28 client (no session, `_meta` on
// every request, the SDK v2 client) beside a 2025-11-25 client in a session (the SDK v1 client), on the
// same daemon (node engine) and the same scripted extension, in alternating blocks so the machine's
// drift hits both alike. Prints p50 / p99 of sequential echo calls and saves bench/results-stateless.json.
// Never fails on time.
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
const clients = { session: await connectClient(target), stateless: await connectStatelessClient(target) }
const plugin = pluginName(0)
const samples = { session: [], stateless: [] }
try {
  for (const mode of Object.keys(clients))
    // warm-up
    for (let i = 0; i < 50; i++)
      await clients[mode].client.callTool({ name: `${plugin}_echo`, arguments: { text: 'warm' } })
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? ['session', 'stateless'] : ['stateless', 'session']
    for (const mode of order)
      for (let i = 0; i < BLOCK; i++) {
        const t0 = performance.now()
        const result = await clients[mode].client.callTool({
          name: `${plugin}_echo`,
          arguments: { text: `hello ${i}` },
        })
        samples[mode].push(performance.now() - t0)
        if (result.isError) throw new Error(`${mode}: ${JSON.stringify(result.content)}`)
      }
  }
} finally {
  for (const c of Object.values(clients)) await c.close().catch(() => undefined)
  ext.close()
  await target.stop()
  rmSync(dir.dir, { recursive: true, force: true })
}
const rows = Object.fromEntries(Object.entries(samples).map(([mode, s]) => [mode, latency(s)]))
const ratio = round3(rows.stateless.p50Ms / rows.session.p50Ms)
console.log(
  `\n${cpus().length} x ${cpus()[0]?.model}, node ${process.version}, load ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
)
console.log('sequential echo calls, one daemon (node engine)')
for (const [mode, r] of Object.entries(rows))
  console.log(`  ${mode.padEnd(10)} p50 ${r.p50Ms} ms  p99 ${r.p99Ms} ms  (${r.n} calls)`)
console.log(`  stateless p50 / session p50 = ${ratio}`)
const file = join(root, 'bench', 'results-stateless.json')
writeFileSync(
  file,
  JSON.stringify(
    { quick, durationS: Math.round((performance.now() - startedAt) / 1000), rows, ratio },
    null,
    2,
  ) + '\n',
)
console.log(`saved ${file}`)
