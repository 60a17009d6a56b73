// Where start-up goes: runs dist/server.js under `node --cpu-prof` until GET /health answers, then
// prints the main thread's time up to that moment by package / source module and by function, and the
// daemon's idle memory after a full GC (RSS, V8 heap, external).
//
//   node scripts/build.mjs && node bench/startupProfile.mjs [--plugins 4] [--runs 5] [--engine node]
//     [--server dist/server.js] [--save <file.cpuprofile>]
import { spawn } from 'node:child_process'
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { createConfigDir } from './fixtures.mjs'
import { freePort, startTarget } from './targets.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const { values } = parseArgs({
  options: {
    engine: { type: 'string', default: 'node' },
    plugins: { type: 'string', default: '4' },
    runs: { type: 'string', default: '5' },
    top: { type: 'string', default: '25' },
    server: { type: 'string', default: 'dist/server.js' },
    save: { type: 'string' },
  },
})
const server = resolve(root, values.server)
const fixture = createConfigDir(Number(values.plugins))
const profDir = mkdtempSync(join(tmpdir(), 'bridge-prof-'))
const MB = 1024 * 1024
try {
  await (await startTarget({ kind: values.engine, configDir: fixture.dir, probe: false, server })).stop() // writes the config dir

  // 1. Time to healthy, several runs, no profiler.
  const times = []
  for (let i = 0; i < Number(values.runs); i++) times.push(await toHealthy([]))
  times.sort((a, b) => a.ms - b.ms)
  console.log(
    `${values.server}, ${values.plugins} plugins, ${values.engine}: cold start to healthy ${times.map((t) => t.ms.toFixed(0)).join(' / ')} ms (median ${times[times.length >> 1].ms.toFixed(0)})`,
  )

  // 2. One run under the profiler, cut at the first 200 from /health.
  const run = await toHealthy(['--cpu-prof', `--cpu-prof-dir=${profDir}`, '--cpu-prof-interval=100'])
  const file = readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'))
  if (values.save) copyFileSync(join(profDir, file), values.save)
  report(JSON.parse(readFileSync(join(profDir, file), 'utf8')), run.healthyAtUs, Number(values.top))

  // 3. Idle memory after a full GC (the bench's memory hook), half a second after healthy.
  const t = await startTarget({ kind: values.engine, configDir: fixture.dir, server })
  await new Promise((r) => setTimeout(r, 500))
  const m = await t.memory()
  await t.stop()
  console.log(
    `\nidle after full GC: rss ${(m.rss / MB).toFixed(1)} MB, heapUsed ${(m.heapUsed / MB).toFixed(1)} MB, external ${(m.external / MB).toFixed(1)} MB`,
  )
} finally {
  rmSync(profDir, { recursive: true, force: true })
  rmSync(fixture.dir, { recursive: true, force: true })
}

/** Spawns the server with `flags`, polls /health, then stops it; resolves with the time and hrtime. */
async function toHealthy(flags) {
  const port = await freePort()
  const env = {
    ...process.env,
    PORT: String(port),
    NO_COLOR: '1',
    BRIDGE_CONFIG_DIR: fixture.dir,
    BRIDGE_HTTP_ENGINE: values.engine,
    BRIDGE_SKIP_REGISTRY_DISCOVERY: '1',
  }
  const t0 = performance.now()
  const proc = spawn(process.execPath, [...flags, server], { env, stdio: ['ignore', 'ignore', 'pipe'] })
  let err = ''
  proc.stderr.on('data', (d) => (err += d))
  const exited = new Promise((r) => proc.once('exit', r))
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`server exited with ${proc.exitCode}: ${err}`)
    const ok = await fetch(`http://127.0.0.1:${port}/health`).then(
      (r) => r.arrayBuffer().then(() => r.ok),
      () => false,
    )
    if (ok) break
    await new Promise((r) => setTimeout(r, 2))
  }
  // CLOCK_MONOTONIC in µs, the clock V8's profile timestamps use on Linux.
  const healthyAtUs = Number(process.hrtime.bigint() / 1000n)
  const ms = performance.now() - t0
  proc.kill('SIGTERM')
  await exited
  return { ms, healthyAtUs }
}

/** Self time up to `endUs`, by package or source module and by function. */
function report(profile, endUs, top) {
  const bundle = readFileSync(server, 'utf8').split('\n')
  const modules = [] // [line, name] of each `// path` marker esbuild leaves above a module
  bundle.forEach((line, i) => {
    const m = /^\/\/ ((?:src|machines|\S*node_modules)\/\S+)$/.exec(line)
    if (m) modules.push([i, m[1].replace(/^\S*node_modules\/((?:@[^/]+\/)?[^/]+).*/, '$1 (bundled)')])
  })
  const moduleAt = (line) => {
    let name = values.server
    for (const [at, m] of modules) if (at <= line) name = m
    return name
  }
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]))
  const byModule = new Map()
  const byFunction = new Map()
  const add = (map, key, us) => map.set(key, (map.get(key) ?? 0) + us)
  let at = profile.startTime
  let total = 0
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i] ?? 0
    if (at > endUs) break
    const us = profile.timeDeltas[i + 1] ?? 0
    const { callFrame: f } = nodes.get(profile.samples[i])
    let where = f.url.replace(/^file:\/\//, '')
    if (where === server) where = moduleAt(f.lineNumber)
    else if (where.includes('node_modules/'))
      where = where.replace(/.*node_modules\/((?:@[^/]+\/)?[^/]+).*/, '$1')
    else if (where.startsWith('node:internal/modules')) where = 'node:internal/modules (loader)'
    else if (where.startsWith('node:')) where = 'node: (other internals)'
    else if (!where) where = `(${f.functionName || 'native'})`
    total += us
    add(byModule, where, us)
    add(byFunction, `${f.functionName || '(anonymous)'}  ${where}:${f.lineNumber + 1}`, us)
  }
  const idle = byModule.get('((idle))') ?? 0
  console.log(
    `\nprofile: ${((endUs - profile.startTime) / 1000).toFixed(0)} ms from profiler start to healthy, ${((total - idle) / 1000).toFixed(0)} ms on the main thread`,
  )
  const print = (title, map) => {
    console.log(`\n${title} (ms, self time)`)
    for (const [k, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top))
      console.log(`  ${(us / 1000).toFixed(1).padStart(7)}  ${k}`)
  }
  print('by package / module', byModule)
  print('by function', byFunction)
}
