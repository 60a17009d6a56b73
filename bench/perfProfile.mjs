// Where a server's CPU goes, counted on the CPU (Linux `perf`, so a thread that is descheduled is not
// sampled, unlike `--cpu-prof`, which samples wall time): runs the target under `--perf-basic-prof`,
// makes the calls (sequential or concurrent) with the bench client and scripted extension, records
// `perf record -g` meanwhile, and prints ms of CPU per call by bucket: the main thread by the module
// of its innermost JavaScript frame (natives, builtins and syscalls counted under it), its garbage
// collection, and the other threads (the JIT compiler, GC helpers, the thread pool).
//
//   node scripts/build.mjs && node bench/perfProfile.mjs [--engine node|uws|floor] [--calls 4000]
//     [--concurrency 1] [--warmup 300] [--server <other build>/server.js]
// Needs `perf` (linux-perf) and permission to use it (as root in a container, or perf_event_paranoid <= 1).
import { execFileSync, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { createConfigDir } from './fixtures.mjs'
import { callsInFlight, openCallTarget } from './targets.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const { values } = parseArgs({
  options: {
    engine: { type: 'string', default: 'node' },
    calls: { type: 'string', default: '4000' },
    concurrency: { type: 'string', default: '1' },
    warmup: { type: 'string', default: '300' },
    frequency: { type: 'string', default: '2000' },
    server: { type: 'string' },
    top: { type: 'string', default: '30' },
  },
})
const calls = Number(values.calls)
const hz = Number(values.frequency)
const fixture = createConfigDir(4)
const dir = mkdtempSync(join(tmpdir(), 'bridge-perf-'))
const data = join(dir, 'perf.data')
try {
  const {
    target: t,
    call,
    close,
  } = await openCallTarget(fixture, {
    kind: values.engine,
    nodeFlags: ['--perf-basic-prof'],
    warmup: Number(values.warmup),
    ...(values.server ? { server: values.server } : {}),
  })
  const perf = spawn('perf', ['record', '-F', String(hz), '-g', '-p', String(t.pid), '-o', data], {
    stdio: 'ignore',
  })
  await new Promise((r) => setTimeout(r, 500))
  const cpu0 = t.cpuPreciseMs()
  await callsInFlight(calls, Number(values.concurrency), call)
  const cpu = (t.cpuPreciseMs() - cpu0) / calls
  perf.kill('SIGINT')
  await new Promise((r) => perf.once('exit', r))
  await close()
  console.log(
    `${calls} calls, concurrency ${values.concurrency}, ${values.engine}: ${cpu.toFixed(3)} ms of server CPU per call (under perf)`,
  )
  report(
    execFileSync('perf', ['script', '-i', data, '-F', 'tid,ip,sym'], {
      maxBuffer: 1 << 30,
      encoding: 'utf8',
    }),
  )
} finally {
  rmSync(dir, { recursive: true, force: true })
  rmSync(fixture.dir, { recursive: true, force: true })
}

function report(text) {
  const bundle = values.server ?? join(root, 'dist/server.js')
  const markers = [] // [line, module] of each `// src/...` or `// .../node_modules/...` marker esbuild leaves
  if (values.engine !== 'floor')
    readFileSync(bundle, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        const m = /^\/\/ ((?:src|machines|\S*node_modules)\/\S+)$/.exec(line)
        if (m) markers.push([i + 1, m[1].replace(/^\S*node_modules\/((?:@[^/]+\/)?[^/]+).*/, '$1')])
      })
  const moduleAt = (line) => {
    let name = 'dist/server.js'
    for (const [at, m] of markers) if (at <= line) name = m
    return name
  }
  const samples = text.split('\n\n').filter((s) => s.trim())
  const threads = new Map()
  for (const s of samples) {
    const tid = s.trim().split('\n')[0].trim()
    threads.set(tid, (threads.get(tid) ?? 0) + 1)
  }
  const main = [...threads].sort((a, b) => b[1] - a[1])[0]?.[0]
  const buckets = new Map()
  const add = (key) => buckets.set(key, (buckets.get(key) ?? 0) + 1)
  for (const s of samples) {
    const [tidLine, ...rest] = s.trim().split('\n')
    const frames = rest.map((l) => l.trim().replace(/^[0-9a-f]+ /, ''))
    if (tidLine.trim() !== main) {
      if (frames.some((f) => f.includes('compiler::') || f.includes('OptimizingCompile')))
        add('other thread: JIT compiler')
      else if (frames.some((f) => /Scaveng|Marking|Sweep|Heap/.test(f))) add('other thread: GC')
      else add('other thread: thread pool, other')
      continue
    }
    if (frames.some((f) => /Heap::CollectGarbage|Scavenger|MarkCompact/.test(f))) {
      add('main: garbage collection')
      continue
    }
    const js = frames.find((f) => f.startsWith('JS:'))
    if (!js) {
      add(frames.some((f) => f.includes('epoll')) ? 'main: event loop (epoll)' : 'main: native, outside JS')
      continue
    }
    const m = /(file:\/\/\S+|node:\S+):(\d+):\d+/.exec(js)
    let where = js
    if (m?.[1].endsWith('/dist/server.js') || (values.server && m?.[1].endsWith(values.server)))
      where = moduleAt(Number(m[2]))
    else if (m?.[1].includes('node_modules/'))
      where = m[1].replace(/.*node_modules\/((?:@[^/]+\/)?[^/]+).*/, '$1')
    else if (m) where = m[1].replace(/^file:\/\/.*\//, '').replace(/^node:internal\//, 'node:')
    add(`main: ${where}`)
  }
  const msPerSample = 1000 / hz
  console.log(`${samples.length} samples at ${hz} Hz; ms of CPU per call by bucket, share of all samples:`)
  for (const [key, count] of [...buckets].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top)))
    console.log(
      `  ${((count * msPerSample) / calls).toFixed(4).padStart(8)}  ${((100 * count) / samples.length).toFixed(1).padStart(5)}%  ${key}`,
    )
}
