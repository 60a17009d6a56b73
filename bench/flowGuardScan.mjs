// `node bench/flowGuardScan.mjs [--baseline <git ref>] [--rounds N] [--profile <dir>]`: the data-flow
// guard's fingerprinting alone, outside the daemon: CPU ms of the daemon's thread per result handed out
// (recordSource, then everything it left pending taken), for a new 100 KB snapshot and a new 1 MB
// network capture (bench/flowGuardData.mjs, a new seed each), and for the same result again. src/guard
// is bundled with esbuild into bench/tmp; `--baseline` bundles src/guard of another commit beside it and
// runs the two alternately, so the machine's drift hits both alike. `--profile` writes a CPU profile of
// one run of the current sources. Never fails on time.
import { execFileSync } from 'node:child_process'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, loadavg } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { Session } from 'node:inspector/promises'
import { build } from 'esbuild'
import { captureOf, ORIGIN, snapshotOf } from './flowGuardData.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const arg = (name) => {
  const at = process.argv.indexOf(name)
  return at === -1 ? undefined : process.argv[at + 1]
}
const baseline = arg('--baseline')
const rounds = Number(arg('--rounds') ?? 3)
const profileDir = arg('--profile')
const PER_ROUND = 10
const WARM_UP = 5

const tmp = join(root, 'bench', 'tmp', 'flow-guard-scan')
rmSync(tmp, { recursive: true, force: true })
mkdirSync(tmp, { recursive: true })

async function bundle(name, guardDir) {
  const outfile = join(tmp, `${name}.mjs`)
  await build({
    entryPoints: [join(guardDir, 'flowGuard.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile,
    logLevel: 'error',
  })
  return (await import(pathToFileURL(outfile).href)).createFlowGuard
}

const builds = { current: await bundle('current', join(root, 'src', 'guard')) }
if (baseline) {
  const dir = join(tmp, 'baseline-src')
  mkdirSync(dir, { recursive: true })
  const files = execFileSync('git', ['ls-tree', '--name-only', baseline, 'src/guard/'], {
    cwd: root,
    encoding: 'utf8',
  })
    .split('\n')
    .filter(Boolean)
  for (const file of files)
    writeFileSync(
      join(dir, file.slice('src/guard/'.length)),
      execFileSync('git', ['show', `${baseline}:${file}`], {
        cwd: root,
        encoding: 'utf8',
        maxBuffer: 1 << 26,
      }),
    )
  builds.baseline = await bundle('baseline', dir)
}

const KINDS = {
  'snapshot 100 KB': (seed) => snapshotOf(100 * 1024, seed),
  'network capture 1 MB': (seed) => captureOf(1024 * 1024, seed),
}
/** CPU ms of this process (one thread: the bundles start no worker) per result handed out. */
function measure(createFlowGuard, make, seeds, repeated) {
  const guard = createFlowGuard({ defer: () => undefined })
  const results = seeds.map((seed) => make(repeated ? seeds[0] : seed))
  const times = []
  for (let i = 0; i < results.length; i++) {
    const t0 = process.cpuUsage()
    guard.recordSource('bench', [ORIGIN], results[i])
    guard.settle()
    const t = process.cpuUsage(t0)
    if (i >= WARM_UP) times.push((t.user + t.system) / 1000)
  }
  return times
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

let session
if (profileDir) {
  session = new Session()
  session.connect()
  await session.post('Profiler.enable')
  await session.post('Profiler.setSamplingInterval', { interval: 100 })
  await session.post('Profiler.start')
}
const figures = {}
let seed = 1000
for (let round = 0; round < rounds; round++)
  for (const [kind, make] of Object.entries(KINDS))
    for (const repeated of [false, true]) {
      const names = round % 2 === 0 ? Object.keys(builds) : Object.keys(builds).reverse()
      const seeds = Array.from({ length: WARM_UP + PER_ROUND }, () => seed++)
      for (const name of names) {
        const key = `${kind}, ${repeated ? 'repeated' : 'new'} ${name}`
        ;(figures[key] ??= []).push(...measure(builds[name], make, seeds, repeated))
      }
    }
if (session) {
  const { profile } = await session.post('Profiler.stop')
  mkdirSync(profileDir, { recursive: true })
  const file = join(profileDir, `flowGuardScan-${Date.now()}.cpuprofile`)
  writeFileSync(file, JSON.stringify(profile))
  console.log(`profile: ${file}`)
}
console.log(
  `${cpus().length} x ${cpus()[0]?.model}, node ${process.version}, load ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
)
console.log('fingerprinting alone, CPU ms per result (median of', rounds * PER_ROUND, 'results)')
for (const [key, times] of Object.entries(figures))
  console.log(`  ${key.padEnd(40)} ${median(times).toFixed(2)}`)
rmSync(tmp, { recursive: true, force: true })
