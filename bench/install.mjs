// What installing bridge costs a person, beside the peers' CLIs: `npm install -g` of each into a fresh
// global prefix with a fresh, empty npm cache (so every package comes over the network, as on a first
// install), timed, then measured: bytes on disk and packages pulled. bridge is this checkout packed
// (`npm pack`, as it would be published) with its dependencies from the npm registry; the peers are
// installed from the npm registry at pinned versions. The floor, measured in the same run, is npm's own
// cost: the install of a one-file package with no dependencies. Rounds alternate between the packages
// so the machine's drift hits all alike; the figures are medians. Writes bench/install.json.
//
//   node bench/install.mjs [--rounds 3]
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const roundsArg = process.argv.indexOf('--rounds')
const ROUNDS = roundsArg === -1 ? 3 : Number(process.argv[roundsArg + 1])

/** The peers' CLIs as their READMEs install them, pinned. */
const PEERS = [
  { name: 'Playwright MCP', spec: '@playwright/mcp@0.0.83' },
  { name: 'chrome-devtools-mcp', spec: 'chrome-devtools-mcp@1.11.0' },
  { name: 'OpenTabs CLI', spec: '@opentabs-dev/cli@latest' },
]

const work = mkdtempSync(join(tmpdir(), 'bridge-install-bench-'))
try {
  const floor = floorPackage(join(work, 'floor'))
  const bridgeTarball = packBridge(join(work, 'pack'))
  const targets = [
    { name: 'floor (one file, no dependencies)', spec: floor, label: 'floor' },
    { name: 'bridge', spec: bridgeTarball, label: '@bridge-mcp/bridge (this checkout, packed)' },
    ...PEERS.map((p) => ({ ...p, label: p.spec })),
  ]
  const runs = new Map(targets.map((t) => [t.name, []]))
  const unavailable = new Map()
  for (let round = 0; round < ROUNDS; round++)
    for (const target of targets) {
      if (unavailable.has(target.name)) continue
      const result = installOnce(
        target.spec,
        join(work, `r${round}-${runs.get(target.name).length}-${slug(target.name)}`),
      )
      if (result.error) {
        unavailable.set(target.name, result.error)
        console.log(`${target.name}: ${result.error}`)
        continue
      }
      runs.get(target.name).push(result)
      console.log(
        `${target.name}: ${result.seconds.toFixed(1)} s, ${mb(result.bytes)} MB, ${result.packages} packages`,
      )
    }
  const rows = targets.map((t) => {
    const r = runs.get(t.name)
    if (unavailable.has(t.name))
      return { name: t.name, package: t.label, unavailable: unavailable.get(t.name) }
    return {
      name: t.name,
      package: t.label,
      installSeconds: round1(median(r.map((x) => x.seconds))),
      installSecondsAll: r.map((x) => round1(x.seconds)),
      diskMB: round1(mb(median(r.map((x) => x.bytes)))),
      packages: median(r.map((x) => x.packages)),
    }
  })
  const result = {
    date: new Date().toISOString().slice(0, 16).replace('T', ' '),
    method:
      'npm install -g into a fresh prefix with a fresh empty npm cache (every package over the network), wall clock; disk = bytes of the files under the prefix, each hard-linked file once; packages = package.json files under node_modules; medians of the rounds',
    machine: `${cpus().length} x ${cpus()[0]?.model.trim() ?? 'cpu'}, Node ${process.version}, npm ${execFileSync('npm', ['--version']).toString().trim()}, load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' / ')}`,
    rounds: ROUNDS,
    results: rows,
  }
  writeFileSync(join(root, 'bench/install.json'), `${JSON.stringify(result, null, 2)}\n`)
  console.table(rows.map(({ installSecondsAll: _all, ...row }) => row))
} finally {
  rmSync(work, { recursive: true, force: true })
}

function installOnce(spec, dir) {
  const prefix = join(dir, 'prefix')
  mkdirSync(prefix, { recursive: true })
  const started = process.hrtime.bigint()
  const run = spawnSync(
    'npm',
    [
      'install',
      '--global',
      '--prefix',
      prefix,
      '--cache',
      join(dir, 'cache'),
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      spec,
    ],
    { encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false' }, timeout: 15 * 60_000 },
  )
  const seconds = Number(process.hrtime.bigint() - started) / 1e9
  if (run.status !== 0) {
    rmSync(dir, { recursive: true, force: true })
    const first =
      (run.stderr || run.error?.message || '').split('\n').find((l) => /\S/.test(l)) ?? 'npm failed'
    return { error: first.replace(/^npm error\s*/, '').slice(0, 200) }
  }
  const lib = join(prefix, 'lib', 'node_modules')
  const measured = { seconds, bytes: bytesUnder(prefix), packages: packagesUnder(lib) }
  rmSync(dir, { recursive: true, force: true })
  return measured
}

/** Bytes of the files under `dir`, each file once however many hard links it has (esbuild links its binary). */
function bytesUnder(dir, seen = new Set()) {
  let total = 0
  for (const name of readdirSync(dir)) {
    const full = join(dir, name)
    const stat = lstatSync(full)
    if (stat.isDirectory()) total += bytesUnder(full, seen)
    else if (stat.isFile() && !seen.has(`${stat.dev}:${stat.ino}`)) {
      seen.add(`${stat.dev}:${stat.ino}`)
      total += stat.size
    }
  }
  return total
}

/** Installed packages: folders with a package.json directly under a node_modules (scopes included). */
function packagesUnder(nodeModules) {
  if (!existsSync(nodeModules)) return 0
  let count = 0
  for (const name of readdirSync(nodeModules)) {
    if (name.startsWith('.')) continue
    const full = join(nodeModules, name)
    if (name.startsWith('@')) count += packagesUnder(full)
    else if (existsSync(join(full, 'package.json'))) {
      count += 1
      count += packagesUnder(join(full, 'node_modules'))
    }
  }
  return count
}

function floorPackage(dir) {
  mkdirSync(dir, { recursive: true })
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'install-floor', version: '1.0.0', bin: { 'install-floor': 'cli.js' } }),
  )
  writeFileSync(join(dir, 'cli.js'), '#!/usr/bin/env node\nconsole.log("floor")\n')
  const name = execFileSync('npm', ['pack', '--pack-destination', dir], { cwd: dir, encoding: 'utf8' }).trim()
  return join(dir, name.split('\n').pop())
}

function packBridge(dir) {
  mkdirSync(dir, { recursive: true })
  const out = execFileSync('npm', ['pack', '--json', '--pack-destination', dir], {
    cwd: root,
    encoding: 'utf8',
  })
  return join(dir, JSON.parse(out)[0].filename)
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}
function mb(bytes) {
  return bytes / 1024 / 1024
}
function round1(n) {
  return Math.round(n * 10) / 10
}
function slug(s) {
  return s.replace(/[^a-z0-9]+/gi, '-').toLowerCase()
}
