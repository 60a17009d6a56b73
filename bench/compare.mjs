// Two or more builds of the daemon beside the floor, in one run: every target started once, then
// rounds of sequential and 16-concurrent calls, the targets alternating within each round so the
// machine's drift hits all alike. Prints, per target, the median over rounds of the wall time and
// server CPU per call (sequential), the throughput and CPU per call at concurrency 16, and each as a
// ratio to the floor of the same rounds. For measuring one change against the build before it.
//
//   node bench/compare.mjs [--rounds 5] [--calls 600] [--warmup 200] [--engine node|uws]
//     [--server name=<dist>/server.js ...] [--flags name=<node flag> ...]
//   (without --server: the floor and this checkout's dist/server.js)
import { rmSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { createConfigDir } from './fixtures.mjs'
import { callsInFlight, openCallTarget } from './targets.mjs'

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    calls: { type: 'string', default: '600' },
    concurrency: { type: 'string', default: '16' },
    engine: { type: 'string', default: 'node' },
    // Calls each target makes before the rounds: 200 as in `npm run bench`; thousands for the steady
    // state, once the JIT compiler has done its work (a warm daemon's CPU per call).
    warmup: { type: 'string', default: '200' },
    server: { type: 'string', multiple: true, default: [] },
    // Node flags for one target: `--flags name=--max-semi-space-size=32` (repeatable).
    flags: { type: 'string', multiple: true, default: [] },
  },
})
const rounds = Number(values.rounds)
const calls = Number(values.calls)
const concurrency = Number(values.concurrency)
// One config folder per target: a daemon holds its folder's lock, so two builds cannot share one.
const fixtures = []
const builds = values.server.length > 0 ? values.server.map((s) => s.split('=')) : [['dist', undefined]]
const flagsOf = (name) =>
  values.flags.filter((f) => f.startsWith(`${name}=`)).map((f) => f.slice(name.length + 1))

const targets = []
try {
  targets.push({ name: 'floor', ...(await open({ kind: 'floor' })) })
  for (const [name, server] of builds)
    targets.push({
      name,
      ...(await open({ kind: values.engine, nodeFlags: flagsOf(name), ...(server ? { server } : {}) })),
    })
  const results = new Map(targets.map((t) => [t.name, []]))
  for (let round = 0; round < rounds; round++) {
    // Alternate the order each round too: the first target of a round is not always the same.
    const order = round % 2 === 0 ? targets : [...targets].reverse()
    for (const t of order) results.get(t.name).push(await measure(t))
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
  const floor = summarize(results.get('floor'))
  console.log(
    `${rounds} rounds of ${calls} sequential and ${calls} ${concurrency}-concurrent calls after ${values.warmup} to warm up, ${values.engine} engine; medians over rounds (ratio to the floor; p50 / p99 of each round's sequential calls)`,
  )
  for (const t of targets) {
    const s = summarize(results.get(t.name))
    const r = (v, f) => (t.name === 'floor' ? '' : ` (${(v / f).toFixed(2)}x)`)
    console.log(
      `${t.name.padEnd(10)} seq ${s.seqMs.toFixed(3)} ms${r(s.seqMs, floor.seqMs)}, p50 ${s.p50.toFixed(3)} p99 ${s.p99.toFixed(3)} ms, cpu ${s.seqCpu.toFixed(3)} ms${r(s.seqCpu, floor.seqCpu)}` +
        ` | conc ${Math.round(s.rate)} calls/s${r(s.rate, floor.rate)}, cpu ${s.concCpu.toFixed(3)} ms${r(s.concCpu, floor.concCpu)}`,
    )
  }
  function summarize(rows) {
    return {
      seqMs: median(rows.map((x) => x.seqMs)),
      seqCpu: median(rows.map((x) => x.seqCpu)),
      rate: median(rows.map((x) => x.rate)),
      concCpu: median(rows.map((x) => x.concCpu)),
      p50: median(rows.map((x) => x.p50)),
      p99: median(rows.map((x) => x.p99)),
    }
  }
} finally {
  for (const t of targets) await t.close()
  for (const fixture of fixtures) rmSync(fixture.dir, { recursive: true, force: true })
}

function open(options) {
  const fixture = createConfigDir(4)
  fixtures.push(fixture)
  return openCallTarget(fixture, { ...options, warmup: Number(values.warmup) })
}

async function measure({ target, call }) {
  let cpu0 = target.cpuPreciseMs()
  let t0 = performance.now()
  const latencies = []
  for (let i = 0; i < calls; i++) {
    const c0 = performance.now()
    await call()
    latencies.push(performance.now() - c0)
  }
  const seqMs = (performance.now() - t0) / calls
  latencies.sort((a, b) => a - b)
  const p50 = latencies[Math.floor(calls * 0.5)]
  const p99 = latencies[Math.floor(calls * 0.99)]
  const seqCpu = (target.cpuPreciseMs() - cpu0) / calls
  cpu0 = target.cpuPreciseMs()
  t0 = performance.now()
  await callsInFlight(calls, concurrency, call)
  const rate = calls / ((performance.now() - t0) / 1000)
  const concCpu = (target.cpuPreciseMs() - cpu0) / calls
  return { seqMs, seqCpu, rate, concCpu, p50, p99 }
}
