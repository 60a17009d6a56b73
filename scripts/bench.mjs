// Benchmark: the figures of issue 11, measured in one run for the floor (bench/floorServer.mjs, the
// least a server must do for the same client) and the real daemon (dist/server.js) on both HTTP
// engines, alternating between them in small blocks so the machine's drift hits all three alike.
// Client: the MCP SDK client over HTTP; extension: a scripted one on a real WebSocket (bench/targets.mjs).
// Prints a table with ratios to the floor and saves bench/results.json. Never fails on time.
//
//   npm run bench             # full run (a few minutes)
//   npm run bench -- --quick  # short run, saved as bench/results-quick.json
//   npm run bench -- --startup [--quick]  # only cold start and idle RSS (bench/results-startup.json)
//   npm run bench -- --startup --baseline <dir>/server.js  # and another build beside it (node engine)
//   npm run bench -- --stateless [--quick]  # a 2026-07-28 client (no session) beside a session client
//   npm run bench -- --flow-guard [--quick]  # the data-flow guard's cost per reading call, beside it off
import { cpus, loadavg, totalmem } from 'node:os'
import { rmSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { performance } from 'node:perf_hooks'
import { createConfigDir, pluginName } from '../bench/fixtures.mjs'
import { connectClient, createExtension, startTarget } from '../bench/targets.mjs'

if (process.argv.includes('--stateless')) {
  await import('../bench/stateless.mjs')
  process.exit(0)
}
if (process.argv.includes('--flow-guard')) {
  await import('../bench/flowGuard.mjs')
  process.exit(0)
}
const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const quick = process.argv.includes('--quick')
const startupOnly = process.argv.includes('--startup')
const N = quick
  ? {
      cold: startupOnly ? 3 : 1,
      seq: 400,
      conc: 800,
      memCalls: 3000,
      sync: 3,
      list: 5,
      seq100: 400,
      reloads: 3,
      budgetMs: 8_000,
    }
  : {
      cold: startupOnly ? 7 : 3,
      seq: 2000,
      conc: 4000,
      memCalls: 20_000,
      sync: 10,
      list: 30,
      seq100: 2000,
      reloads: 10,
      budgetMs: 30_000,
    }
const BLOCK = quick ? 100 : 250
const CONCURRENCY = 16
const FEW = 4
const MANY = 100
// --baseline: another build of the daemon (say, the previous commit's dist/ copied under the checkout,
// so it finds node_modules), measured in the same run on the node engine, as the `baseline` column.
const baselineAt = process.argv.indexOf('--baseline')
const baseline = baselineAt === -1 ? undefined : resolve(process.argv[baselineAt + 1])
if (baseline && !startupOnly) throw new Error('--baseline goes with --startup')
const KINDS = ['floor', 'node', 'uws', ...(baseline ? ['baseline'] : [])]
const BRIDGES = KINDS.filter((k) => k !== 'floor')
const configDirs = (count) => Object.fromEntries(BRIDGES.map((k) => [k, createConfigDir(count)]))
const start = (options) =>
  startTarget(options.kind === 'baseline' ? { ...options, engine: 'node', server: baseline } : options)

const log = (...a) => console.error('bench:', ...a)
const round3 = (x) => Math.round(x * 1000) / 1000
const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]
function latency(samples) {
  const s = [...samples].sort((a, b) => a - b)
  return { n: s.length, p50Ms: round3(quantile(s, 0.5)), p99Ms: round3(quantile(s, 0.99)) }
}
const median = (xs) =>
  round3(
    quantile(
      [...xs].sort((a, b) => a - b),
      0.5,
    ),
  )
/** Each round visits every target, starting with a different one, so no target always goes first. */
function* rotations(items, rounds) {
  for (let r = 0; r < rounds; r++)
    for (let i = 0; i < items.length; i++) yield [items[(r + i) % items.length], r]
}

/**
 * One echo call. A call refused because the extension's socket just dropped is made again once the
 * scripted extension is back (counted in `retried`); any other tool error would mean the bench measures
 * a refusal, so it stops the run.
 */
async function call(t, plugin, i) {
  for (let attempt = 0; ; attempt++) {
    const result = await t.mcp.client.callTool({ name: `${plugin}_echo`, arguments: { text: `hello ${i}` } })
    if (!result.isError) break
    const text = JSON.stringify(result.content)
    if (!/extension_(not_connected|disconnected)/.test(text) || attempt >= 20)
      throw new Error(`${t.kind}: ${plugin}_echo failed: ${text}`)
    t.retried = (t.retried ?? 0) + 1
    await new Promise((r) => setTimeout(r, 200))
  }
  t.calls++
}

async function coldStarts(dirs, toolsFile) {
  const times = Object.fromEntries(KINDS.map((k) => [k, []]))
  for (const kind of BRIDGES) await (await start({ kind, configDir: dirs[kind].dir, probe: false })).stop() // first run writes the config dir
  for (const [kind] of rotations(KINDS, N.cold)) {
    const t = await start({ kind, configDir: dirs[kind]?.dir, toolsFile, probe: false })
    times[kind].push(t.coldStartMs)
    await t.stop()
  }
  return Object.fromEntries(KINDS.map((k) => [k, { ms: median(times[k]), runs: times[k].map(round3) }]))
}

async function startAll(dirs, toolsFile) {
  const targets = {}
  for (const kind of KINDS) {
    const t = await start({ kind, configDir: dirs[kind]?.dir, toolsFile })
    t.ext = createExtension(t)
    t.syncMs = await t.ext.connect()
    t.mcp = await connectClient(t)
    t.calls = 0
    targets[kind] = t
  }
  return targets
}

/** Extension reconnects and retried calls per phase and target: a quiet run has none. */
const incidents = {}

async function stopAll(targets, phase) {
  for (const t of Object.values(targets)) {
    incidents[`${phase} ${t.kind}`] = { extensionReconnects: t.ext.reconnects, callsRetried: t.retried ?? 0 }
    await t.mcp.close().catch(() => undefined)
    t.ext.close()
    await t.stop()
  }
}

/** Sequential calls in blocks, alternating targets; a target over its time budget stops early. */
async function sequential(targets, total, plugins) {
  const out = {}
  for (const kind of KINDS) out[kind] = { samples: [], cpuMs: 0, spentMs: 0 }
  for (const [kind] of rotations(KINDS, Math.ceil(total / BLOCK))) {
    const t = targets[kind]
    const o = out[kind]
    if (o.spentMs > N.budgetMs) continue
    const cpu0 = t.cpuMs()
    const b0 = performance.now()
    for (let i = 0; i < BLOCK; i++) {
      const t0 = performance.now()
      await call(t, plugins[(o.samples.length + i) % plugins.length], i)
      o.samples.push(performance.now() - t0)
    }
    o.spentMs += performance.now() - b0
    o.cpuMs += t.cpuMs() - cpu0
  }
  return Object.fromEntries(
    KINDS.map((k) => {
      const o = out[k]
      return [k, { ...latency(o.samples), cpuPerCallMs: round3(o.cpuMs / o.samples.length) }]
    }),
  )
}

/** `count` calls with 16 in flight, spread over the plugins; returns wall time and server CPU. */
async function concurrentBlock(t, count, plugins) {
  let next = 0
  const cpu0 = t.cpuMs()
  const t0 = performance.now()
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, w) => {
      while (next < count) await call(t, plugins[w % plugins.length], next++)
    }),
  )
  return { ms: performance.now() - t0, cpuMs: t.cpuMs() - cpu0 }
}

async function concurrent(targets, total, plugins) {
  const out = {}
  for (const kind of KINDS) out[kind] = { calls: 0, ms: 0, cpuMs: 0 }
  const block = BLOCK * 2
  for (const [kind] of rotations(KINDS, Math.ceil(total / block))) {
    const o = out[kind]
    if (o.ms > N.budgetMs) continue
    const r = await concurrentBlock(targets[kind], block, plugins)
    o.calls += block
    o.ms += r.ms
    o.cpuMs += r.cpuMs
  }
  return Object.fromEntries(
    KINDS.map((k) => {
      const o = out[k]
      return [
        k,
        {
          n: o.calls,
          callsPerSecond: Math.round(o.calls / (o.ms / 1000)),
          cpuPerCallMs: round3(o.cpuMs / o.calls),
        },
      ]
    }),
  )
}

const MB = 1024 * 1024
const mem = (m) => ({ rssMB: round3(m.rss / MB), heapMB: round3(m.heapUsed / MB) })
const idleOnly = (idle) => Object.fromEntries(KINDS.map((k) => [k, { idle: mem(idle[k]) }]))

async function fewPlugins() {
  const dirs = configDirs(FEW)
  const plugins = dirs.node.names
  try {
    log(`cold start, ${FEW} plugins`)
    const coldStart = await coldStarts(dirs, dirs.node.toolsFile)
    const targets = await startAll(dirs, dirs.node.toolsFile)
    try {
      const idle = {}
      for (const kind of KINDS) idle[kind] = await targets[kind].memory()
      if (startupOnly) return { coldStart, memory: idleOnly(idle) }
      log('warm-up')
      for (const kind of KINDS) for (let i = 0; i < 200; i++) await call(targets[kind], plugins[i % FEW], i)
      log(`${N.seq} sequential calls`)
      const seq = await sequential(targets, N.seq, [plugins[0]])
      log(`${N.conc} calls, ${CONCURRENCY} concurrent over ${FEW} plugins`)
      const conc = await concurrent(targets, N.conc, plugins)
      // Heap kept per call: the slope between two full GCs, both after warm-up.
      const before = {}
      for (const kind of KINDS) before[kind] = { m: await targets[kind].memory(), calls: targets[kind].calls }
      log(`up to ${N.memCalls} calls in all, for memory`)
      for (const kind of KINDS) {
        const t = targets[kind]
        const t0 = performance.now()
        while (t.calls < N.memCalls && performance.now() - t0 < N.budgetMs * 2)
          await concurrentBlock(t, Math.min(1000, N.memCalls - t.calls), plugins)
      }
      const memory = {}
      for (const kind of KINDS) {
        const t = targets[kind]
        const after = await t.memory()
        const b = before[kind]
        memory[kind] = {
          idle: mem(idle[kind]),
          afterCalls: { calls: t.calls, ...mem(after) },
          heapKeptPerCallBytes: Math.round((after.heapUsed - b.m.heapUsed) / Math.max(1, t.calls - b.calls)),
        }
      }
      return { coldStart, seq, conc, memory }
    } finally {
      await stopAll(targets, `${FEW} plugins`)
    }
  } finally {
    for (const d of Object.values(dirs)) rmSync(d.dir, { recursive: true, force: true })
  }
}

async function manyPlugins() {
  const dirs = configDirs(MANY)
  const plugins = dirs.node.names
  try {
    log(`cold start, ${MANY} plugins`)
    const coldStart = await coldStarts(dirs, dirs.node.toolsFile)
    const targets = await startAll(dirs, dirs.node.toolsFile)
    const bridges = KINDS.filter((k) => k !== 'floor')
    try {
      const idle = {}
      for (const kind of KINDS) idle[kind] = await targets[kind].memory()
      if (startupOnly) return { coldStart, memory: idleOnly(idle) }
      log('extension connect -> sync.full')
      const sync = { node: [], uws: [] }
      for (const [kind] of rotations(bridges, N.sync)) sync[kind].push(await targets[kind].ext.connect())
      log('tools/list')
      const list = { floor: [], node: [], uws: [] }
      const raw = { floor: [], node: [], uws: [] }
      const listed = {}
      for (const kind of KINDS) listed[kind] = (await targets[kind].mcp.client.listTools()).tools.length // warm-up
      for (const [kind] of rotations(KINDS, N.list)) {
        const t0 = performance.now()
        await targets[kind].mcp.client.listTools()
        list[kind].push(performance.now() - t0)
        raw[kind].push(await targets[kind].mcp.rawToolsList())
      }
      const toolsList = {}
      for (const kind of KINDS) {
        const bytes = raw[kind][0].bytes
        toolsList[kind] = {
          client: latency(list[kind]),
          wire: latency(raw[kind].map((r) => r.ms)),
          tools: listed[kind],
          bytes,
          bytesPerTool: Math.round(bytes / listed[kind]),
        }
      }
      log(`${N.seq100} sequential calls over ${MANY} plugins`)
      for (const kind of KINDS) for (let i = 0; i < 50; i++) await call(targets[kind], plugins[i % MANY], i)
      const seq = await sequential(targets, N.seq100, plugins)
      log(`${N.reloads} reloads`)
      const beforeReloads = {}
      for (const kind of bridges) beforeReloads[kind] = await targets[kind].memory()
      const reload = { node: { serverMs: [], wallMs: [] }, uws: { serverMs: [], wallMs: [] } }
      for (const [kind] of rotations(bridges, N.reloads)) {
        const t = targets[kind]
        const t0 = performance.now()
        const response = await fetch(`${t.url}/reload`, {
          method: 'POST',
          headers: { authorization: `Bearer ${t.secret}` },
        })
        const body = await response.json()
        if (!response.ok || body.plugins !== MANY)
          throw new Error(`${kind}: reload answered ${JSON.stringify(body)}`)
        reload[kind].wallMs.push(performance.now() - t0)
        reload[kind].serverMs.push(body.durationMs)
      }
      await new Promise((r) => setTimeout(r, 200)) // the sync.full after the last reload
      const memory = {}
      for (const kind of KINDS) {
        const after = await targets[kind].memory()
        memory[kind] = {
          idle: mem(idle[kind]),
          ...(beforeReloads[kind]
            ? {
                afterReloads: { reloads: N.reloads, ...mem(after) },
                heapKeptPerReloadKB: round3(
                  (after.heapUsed - beforeReloads[kind].heapUsed) / 1024 / N.reloads,
                ),
              }
            : {}),
        }
      }
      return {
        coldStart,
        syncFull: Object.fromEntries(bridges.map((k) => [k, { ms: median(sync[k]), n: sync[k].length }])),
        toolsList,
        seq,
        reload: Object.fromEntries(
          bridges.map((k) => [k, { serverMs: median(reload[k].serverMs), wallMs: median(reload[k].wallMs) }]),
        ),
        memory,
      }
    } finally {
      await stopAll(targets, `${MANY} plugins`)
    }
  } finally {
    for (const d of Object.values(dirs)) rmSync(d.dir, { recursive: true, force: true })
  }
}

const startedAt = performance.now()
const machine = {
  date: new Date().toISOString(),
  cpuModel: cpus()[0]?.model ?? 'unknown',
  cpus: cpus().length,
  memoryGiB: Math.round(totalmem() / 2 ** 30),
  node: process.version,
  loadAverageAtStart: loadavg().map((x) => Math.round(x * 100) / 100),
}
const few = await fewPlugins()
const many = await manyPlugins()

// The table: one row per figure of the issue, each with the floor where it has one and the ratio to it.
const rows = []
// With --startup only the cold-start and idle-memory figures exist; the other rows are left out.
const row = (figure, unit, values, target) => {
  if (values && Object.values(values).some((v) => v !== undefined))
    rows.push({ figure, unit, ...values, target })
}
const pick = (obj, f) => obj && Object.fromEntries(KINDS.filter((k) => obj[k]).map((k) => [k, f(obj[k])]))
row(
  `tool call, ${few.seq?.node.n} sequential, p50`,
  'ms',
  pick(few.seq, (r) => r.p50Ms),
  'floor + 0.5',
)
row(
  'tool call, sequential, p99',
  'ms',
  pick(few.seq, (r) => r.p99Ms),
  'floor + 1',
)
row(
  `tool call with ${MANY} plugins, p50`,
  'ms',
  pick(many.seq, (r) => r.p50Ms),
  'floor + 0.5',
)
row(
  `tool call with ${MANY} plugins, p99`,
  'ms',
  pick(many.seq, (r) => r.p99Ms),
  'floor + 1',
)
row(
  `${CONCURRENCY} concurrent calls over ${FEW} plugins`,
  'calls/s',
  pick(few.conc, (r) => r.callsPerSecond),
  '>= 80% of floor',
)
row(
  'server CPU per call, sequential',
  'ms',
  pick(few.seq, (r) => r.cpuPerCallMs),
  '',
)
row(
  `server CPU per call, ${CONCURRENCY} concurrent`,
  'ms',
  pick(few.conc, (r) => r.cpuPerCallMs),
  '',
)
row(
  `tools/list, ${many.toolsList?.node.tools} tools, p50 (to last byte)`,
  'ms',
  pick(many.toolsList, (r) => r.wire.p50Ms),
  '< 10',
)
row(
  'tools/list, p50 (SDK client, parsed)',
  'ms',
  pick(many.toolsList, (r) => r.client.p50Ms),
  '',
)
row(
  'tools/list bytes',
  'KB',
  pick(many.toolsList, (r) => round3(r.bytes / 1024)),
  '',
)
row(
  'tools/list bytes per tool',
  'B',
  pick(many.toolsList, (r) => r.bytesPerTool),
  '',
)
row(
  `cold start to healthy, ${FEW} plugins`,
  'ms',
  pick(few.coldStart, (r) => r.ms),
  '< 200',
)
row(
  `cold start to healthy, ${MANY} plugins`,
  'ms',
  pick(many.coldStart, (r) => r.ms),
  '< 400',
)
row(
  `extension connect -> sync.full, ${MANY} plugins`,
  'ms',
  pick(many.syncFull, (r) => r.ms),
  '< 20',
)
row(
  `POST /reload, ${MANY} unchanged plugins (server)`,
  'ms',
  pick(many.reload, (r) => r.serverMs),
  '< 100',
)
row(
  `RSS idle, ${FEW} plugins`,
  'MB',
  pick(few.memory, (r) => r.idle.rssMB),
  '< 60',
)
row(
  `RSS idle, ${MANY} plugins`,
  'MB',
  pick(many.memory, (r) => r.idle.rssMB),
  '< 80',
)
row(
  `RSS after ${N.memCalls} calls`,
  'MB',
  pick(few.memory, (r) => r.afterCalls?.rssMB),
  'no growth',
)
row(
  `RSS after ${N.reloads} reloads, ${MANY} plugins`,
  'MB',
  pick(many.memory, (r) => r.afterReloads?.rssMB),
  'no growth',
)
row(
  'heap kept per call, after full GC',
  'B',
  pick(few.memory, (r) => r.heapKeptPerCallBytes),
  '~0',
)
row(
  'heap kept per reload, after full GC',
  'KB',
  pick(many.memory, (r) => r.heapKeptPerReloadKB),
  '~0',
)

const cell = (v) => (v === undefined ? '-' : String(v))
const ratio = (v, floor) =>
  typeof v === 'number' && typeof floor === 'number' && floor > 0 ? `${round3(v / floor)}x` : '-'
const header = ['figure', 'unit', ...KINDS, ...BRIDGES.map((k) => `${k}/floor`), 'target']
const lines = rows.map((r) => [
  r.figure,
  r.unit,
  ...KINDS.map((k) => cell(r[k])),
  ...BRIDGES.map((k) => ratio(r[k], r.floor)),
  r.target,
])
const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)))
const fmt = (l) => l.map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ')
console.log(
  `\n${machine.cpus} x ${machine.cpuModel}, node ${machine.node}, load ${machine.loadAverageAtStart.join(' ')}`,
)
console.log(fmt(header))
for (const l of lines) console.log(fmt(l))
const report = {
  machine,
  quick,
  startupOnly,
  durationS: Math.round((performance.now() - startedAt) / 1000),
  rows,
  incidents,
  few,
  many,
}
const file = join(
  root,
  'bench',
  startupOnly ? 'results-startup.json' : quick ? 'results-quick.json' : 'results.json',
)
writeFileSync(file, JSON.stringify(report, null, 2) + '\n')
const troubled = Object.entries(incidents).filter(([, v]) => v.extensionReconnects || v.callsRetried)
if (troubled.length) console.log(`\nincidents: ${JSON.stringify(Object.fromEntries(troubled))}`)
console.log(`\nsaved ${file} (${report.durationS} s)`)
