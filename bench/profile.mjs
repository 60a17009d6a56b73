// CPU profile of the daemon during sequential tool calls: runs dist/server.js under `node --cpu-prof`,
// makes the calls with the bench client and extension, and prints where the main thread's time went,
// per call, by source module (from the bundle's `// src/...` markers) and by function.
//
//   node scripts/build.mjs && node bench/profile.mjs [--engine uws|floor] [--plugins 100] [--calls 2000] [--list]
//     [--concurrency 16]
//     [--save <file.cpuprofile>]
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { createConfigDir } from './fixtures.mjs'
import { callsInFlight, openCallTarget, startTarget } from './targets.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const { values } = parseArgs({
  options: {
    engine: { type: 'string', default: 'node' },
    plugins: { type: 'string', default: '4' },
    calls: { type: 'string', default: '2000' },
    // Calls in flight at once (16 as in the bench's concurrent rows); 1 for sequential calls.
    concurrency: { type: 'string', default: '1' },
    list: { type: 'boolean', default: false },
    top: { type: 'string', default: '25' },
    save: { type: 'string' },
  },
})
const calls = Number(values.calls)
const fixture = createConfigDir(Number(values.plugins))
const profDir = mkdtempSync(join(tmpdir(), 'bridge-prof-'))
try {
  const floor = values.engine === 'floor'
  if (!floor) await (await startTarget({ kind: values.engine, configDir: fixture.dir, probe: false })).stop()
  const {
    target: t,
    mcp,
    call,
    close,
  } = await openCallTarget(fixture, {
    kind: values.engine,
    nodeFlags: ['--cpu-prof', `--cpu-prof-dir=${profDir}`, '--cpu-prof-interval=100'],
  })
  const cpu0 = t.cpuMs()
  const t0 = performance.now()
  await callsInFlight(calls, Number(values.concurrency), () =>
    values.list ? mcp.client.listTools() : call(),
  )
  const wall = performance.now() - t0
  const cpu = t.cpuMs() - cpu0
  await close()
  console.log(
    `${calls} ${values.list ? 'tools/list' : 'calls'} (${values.concurrency} at once), ${values.plugins} plugins, ${values.engine}: ${(wall / calls).toFixed(3)} ms wall, ${(cpu / calls).toFixed(3)} ms server CPU per request`,
  )
  const file = readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'))
  if (values.save) copyFileSync(join(profDir, file), values.save)
  report(JSON.parse(readFileSync(join(profDir, file), 'utf8')), calls, Number(values.top), floor)
} finally {
  rmSync(profDir, { recursive: true, force: true })
  rmSync(fixture.dir, { recursive: true, force: true })
}

/** Self time per module and per function, as ms per request (the profile covers warm-up too: ~ +10%). */
function report(profile, n, top, floor) {
  const bundle = floor ? [] : readFileSync(join(root, 'dist/server.js'), 'utf8').split('\n')
  const modules = [] // [line, name] of each `// src/...` or `// .../node_modules/...` marker esbuild leaves
  bundle.forEach((line, i) => {
    const m = /^\/\/ ((?:src|machines|\S*node_modules)\/\S+)$/.exec(line)
    // Dependencies are bundled too: their code counts under the package's name.
    if (m) modules.push([i, m[1].replace(/^\S*node_modules\/((?:@[^/]+\/)?[^/]+).*/, '$1')])
  })
  const moduleAt = (line) => {
    let name = 'dist/server.js'
    for (const [at, m] of modules) if (at <= line) name = m
    return name
  }
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]))
  const self = new Map()
  for (let i = 0; i < profile.samples.length; i++)
    self.set(profile.samples[i], (self.get(profile.samples[i]) ?? 0) + (profile.timeDeltas[i] ?? 0))
  const byModule = new Map()
  const byFunction = new Map()
  const add = (map, key, us) => map.set(key, (map.get(key) ?? 0) + us)
  for (const [id, us] of self) {
    const { callFrame: f } = nodes.get(id)
    let where = f.url.replace(/^file:\/\//, '')
    if (where.endsWith('dist/server.js')) where = moduleAt(f.lineNumber)
    else if (where.includes('node_modules/'))
      where = where.replace(/.*node_modules\/((?:@[^/]+\/)?[^/]+).*/, '$1')
    else if (where.startsWith('node:')) where = where.split('/')[0] === 'node:internal' ? where : where
    else if (!where) where = f.functionName ? '(native)' : `(${f.functionName || 'vm'})`
    if (
      f.functionName === '(idle)' ||
      f.functionName === '(program)' ||
      f.functionName === '(garbage collector)'
    )
      where = f.functionName
    add(byModule, where, us)
    add(byFunction, `${f.functionName || '(anonymous)'}  ${where}:${f.lineNumber + 1}`, us)
  }
  const busy = [...byModule].filter(([k]) => k !== '(idle)').reduce((s, [, us]) => s + us, 0)
  console.log(`profiled main-thread time, not idle: ${(busy / 1000 / n).toFixed(3)} ms per request`)
  const print = (title, map) => {
    console.log(`\n${title} (ms per request, self time)`)
    for (const [k, us] of [...map]
      .filter(([key]) => key !== '(idle)')
      .sort((a, b) => b[1] - a[1])
      .slice(0, top))
      console.log(`  ${(us / 1000 / n).toFixed(4).padStart(8)}  ${k}`)
  }
  print('by module', byModule)
  print('by function', byFunction)
}
