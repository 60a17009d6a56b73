// Benchmark: what the verifiable audit log costs a call. Two builds of the daemon from this checkout,
// bundled here the same way: `tree` as shipped, and `plain`, the same sources with the tree's hooks
// taken out of src/audit/daemonAudit.ts (today's plain NDJSON log: each line written, group-committed
// and rotated, no leaf hash, no checkpoint signed). The plain build exists only in this benchmark. A
// third daemon, `again`, is the shipped build once more: two identical daemons read against each other
// in the same blocks give the resolution of the tree/plain figures on this machine at this moment.
//
// The three daemons run at once, each with the scripted extension and an MCP SDK client. Sequential
// calls go round them call by call, each block in another order, so the machine's drift and its other
// jobs hit all alike; each call's latency is timed and each daemon's CPU is read from its threads'
// on-CPU time (/proc/<pid>/task/*/schedstat, to the nanosecond) around each block of calls. Every block
// gives one paired ratio (tree / plain, and again / tree) of CPU per call and of p50; the figures are the
// medians of the blocks' ratios with their interquartile range. Concurrent calls (16 in flight) run in
// short rounds, one daemon at a time, the order turning. Prints the figures and saves
// bench/results-audit-cost.json. Never fails on a figure.
//
//   node bench/auditCost.mjs [--blocks 40] [--calls 100] [--rounds 16] [--warmup 1000] [--turn 1]
//
// With --instructions the machine's load is taken out of the figure: each daemon runs alone under
// valgrind's callgrind, which counts the instructions the process executes (user space, every thread;
// the same count for the same work whatever else the machine does). After the warm-up the counters are
// zeroed, `--calls` sequential calls run, and the count is read: instructions per call for tree, plain
// and again (the resolution). V8 runs in its predictable mode (one thread, fixed seeds). Saves bench/results-audit-instructions.json.
//
//   node bench/auditCost.mjs --instructions [--calls 500] [--warmup 1000]
import { build } from 'esbuild'
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { performance } from 'node:perf_hooks'
import { precompiledValidatorsModule } from '../scripts/precompileValidators.mjs'
import { createConfigDir } from './fixtures.mjs'
import { callsInFlight, openCallTarget } from './targets.mjs'

const { values } = parseArgs({
  options: {
    blocks: { type: 'string', default: '40' },
    calls: { type: 'string', default: '100' },
    rounds: { type: 'string', default: '16' },
    concurrency: { type: 'string', default: '16' },
    warmup: { type: 'string', default: '1000' },
    engine: { type: 'string', default: 'node' },
    // Calls one daemon takes in a row before the other's turn: 1 alternates call by call (on a busy
    // machine each call is then a group commit of its own, one signature each: the tree's worst
    // case); more is an agent's back-to-back calls, several to a group commit.
    turn: { type: 'string', default: '1' },
    instructions: { type: 'boolean', default: false },
    // Keeps the bundles and callgrind's dumps (for callgrind_annotate) instead of removing them.
    keep: { type: 'boolean', default: false },
  },
})
const blocks = Number(values.blocks)
const calls = Number(values.calls)
const rounds = Number(values.rounds)
const concurrency = Number(values.concurrency)
const turn = Number(values.turn)

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const out = join(root, `bench/.audit-cost-${process.pid}`)
const fixtures = []
const targets = []
try {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
  const precompiled = await precompiledValidatorsModule()
  // A second daemon as shipped (`again`) runs beside the two: what the benchmark reads as a difference
  // between two identical daemons in the same blocks is the resolution of its tree/plain figures.
  const builds = {
    tree: await bundle('tree', false),
    plain: await bundle('plain', true),
    again: await bundle('again', false),
  }
  if (values.instructions) await countInstructions(builds)
  else await compareUnderLoad(builds)

  /** The paired run: the three daemons at once, sequential blocks and concurrent rounds. */
  async function compareUnderLoad(builds) {
    for (const [name, server] of Object.entries(builds)) {
      const fixture = createConfigDir(4)
      fixtures.push(fixture)
      targets.push({
        name,
        ...(await openCallTarget(fixture, { kind: values.engine, server, warmup: Number(values.warmup) })),
      })
    }
    // Each block takes the daemons in another of the six orders, so no daemon keeps a place in the turn.
    const orders = [
      [0, 1, 2],
      [1, 2, 0],
      [2, 0, 1],
      [0, 2, 1],
      [2, 1, 0],
      [1, 0, 2],
    ].map((o) => o.map((i) => targets[i]))
    const load0 = loadavg()[0]
    const t0 = performance.now()

    // Sequential calls, the daemons in turn.
    const seq = []
    for (let b = 0; b < blocks; b++) {
      const order = orders[b % orders.length]
      const latencies = new Map(targets.map((t) => [t.name, []]))
      const cpu0 = new Map(targets.map((t) => [t.name, t.target.cpuPreciseMs()]))
      for (let i = 0; i < calls; i += turn)
        for (const t of order)
          for (let j = i; j < Math.min(i + turn, calls); j++) {
            const c0 = performance.now()
            await t.call()
            latencies.get(t.name).push(performance.now() - c0)
          }
      const row = {}
      for (const t of targets)
        row[t.name] = {
          cpu: (t.target.cpuPreciseMs() - cpu0.get(t.name)) / calls,
          p50: median(latencies.get(t.name)),
        }
      seq.push(row)
    }

    // Concurrent calls: one daemon at a time (16 in flight).
    const conc = []
    for (let r = 0; r < rounds; r++) {
      const order = orders[r % orders.length]
      const row = {}
      for (const t of order) {
        const cpu0 = t.target.cpuPreciseMs()
        const c0 = performance.now()
        await callsInFlight(calls, concurrency, t.call)
        row[t.name] = {
          rate: calls / ((performance.now() - c0) / 1000),
          cpu: (t.target.cpuPreciseMs() - cpu0) / calls,
        }
      }
      conc.push(row)
    }

    // The plain build signed nothing; the tree build checkpoints after its group commits.
    const signed = fixtures.map((f) => existsSync(join(f.dir, 'audit.checkpoints')))
    if (!signed[0] || signed[1] || !signed[2])
      throw new Error(`not the builds this benchmark means: checkpoints ${signed}`)
    const { entries, checkpoints, perCheckpoint } = signedEntries(fixtures[0].dir)

    const figures = (rows, key) => ({
      tree: Number(median(rows.map((r) => r.tree[key])).toFixed(4)),
      plain: Number(median(rows.map((r) => r.plain[key])).toFixed(4)),
      ratio: spread(rows.map((r) => r.tree[key] / r.plain[key])),
      // The two daemons as shipped against each other: the figure's resolution in this run.
      sameBuild: spread(rows.map((r) => r.again[key] / r.tree[key])),
    })
    const result = {
      ...runFacts(load0, t0),
      sequential: {
        blocks,
        callsInARow: turn,
        callsPerBlock: calls,
        cpuMsPerCall: figures(seq, 'cpu'),
        p50Ms: figures(seq, 'p50'),
      },
      concurrent: {
        rounds,
        calls,
        concurrency,
        cpuMsPerCall: figures(conc, 'cpu'),
        callsPerSecond: figures(conc, 'rate'),
      },
      treeEntriesPerCheckpoint: perCheckpoint,
      plainBuild: `${pkg.name} ${pkg.version}, this checkout with the tree's hooks taken out of src/audit/daemonAudit.ts`,
    }
    const line = (label, f, unit) =>
      `${label.padEnd(28)} tree ${f.tree} ${unit}, plain ${f.plain} ${unit}; tree/plain median ${f.ratio.median}x ` +
      `(IQR ${f.ratio.q1}-${f.ratio.q3}x); same build twice ${f.sameBuild.median}x (IQR ${f.sameBuild.q1}-${f.sameBuild.q3}x)`
    console.log(
      `${blocks} blocks of ${calls} sequential calls to each daemon, alternating every ${turn} call(s); ` +
        `${rounds} rounds of ${calls} ${concurrency}-concurrent calls; load ${result.loadAtStart} -> ${result.loadAtEnd}, ${result.seconds} s`,
    )
    console.log(
      `tree daemon: ${entries} entries, ${checkpoints} signed checkpoints (${result.treeEntriesPerCheckpoint} entries each)`,
    )
    console.log(line('sequential daemon CPU/call', result.sequential.cpuMsPerCall, 'ms'))
    console.log(line('sequential p50', result.sequential.p50Ms, 'ms'))
    console.log(line('concurrent daemon CPU/call', result.concurrent.cpuMsPerCall, 'ms'))
    console.log(line('concurrent calls/s', result.concurrent.callsPerSecond, '/s'))
    const file = turn === 1 ? 'results-audit-cost.json' : `results-audit-cost-turn${turn}.json`
    writeFileSync(join(root, 'bench', file), `${JSON.stringify(result, null, 2)}\n`)
  }

  /** The --instructions run: each build alone under callgrind, instructions per call after the warm-up. */
  async function countInstructions(servers) {
    const t0 = performance.now()
    const load0 = loadavg()[0]
    const perCall = {}
    const mainPerCall = {}
    for (const [name, server] of Object.entries(servers)) {
      const fixture = createConfigDir(4)
      fixtures.push(fixture)
      const outFile = join(out, `callgrind.${name}.out`)
      const started = await openCallTarget(fixture, {
        kind: values.engine,
        server,
        warmup: 0,
        wrap: [
          'valgrind',
          '--tool=callgrind',
          '--quiet',
          '--separate-threads=yes',
          `--callgrind-out-file=${outFile}`,
        ],
        startLimitMs: 600_000,
        // V8's predictable mode: no background compilation or GC threads and fixed seeds, so the same
        // work counts the same instructions (without it two runs of one build differed by up to 10%).
        nodeFlags: ['--predictable'],
      })
      targets.push({ name, ...started })
      // Under valgrind a pause can outlast the HTTP keep-alive timeout, and the server may close the
      // connection as the next request arrives: such a call is made again (not a figure, a transport).
      const call = async () => {
        for (let attempt = 1; ; attempt++) {
          try {
            return await started.call()
          } catch (error) {
            if (attempt >= 3 || !/fetch failed/.test(String(error))) throw error
          }
        }
      }
      for (let i = 0; i < Number(values.warmup); i++) await call()
      const control = (flag) => execFileSync('callgrind_control', [flag, String(started.target.pid)])
      control('--zero')
      for (let i = 0; i < calls; i++) await call()
      control('--dump')
      // The dump after the zeroing holds the count since then, one file per thread (`-01` the main
      // thread, the others V8's compiler and GC helpers and libuv's pool): each file's `summary:` line.
      const dumps = readdirSync(out).filter((f) => f.startsWith(`callgrind.${name}.out.`))
      const counts = dumps.map((f) => {
        const summary = readFileSync(join(out, f), 'utf8').match(/^summary: (\d+)/m)
        if (!summary) throw new Error(`no summary in callgrind's ${f}`)
        return { main: f.endsWith('-01'), count: Number(summary[1]) }
      })
      if (!counts.some((c) => c.main)) throw new Error(`no main-thread dump for ${name}`)
      perCall[name] = Math.round(counts.reduce((sum, c) => sum + c.count, 0) / calls)
      mainPerCall[name] = Math.round(counts.find((c) => c.main).count / calls)
      console.log(
        `${name}: ${perCall[name].toLocaleString('en')} instructions per call ` +
          `(${mainPerCall[name].toLocaleString('en')} on the main thread)`,
      )
      await started.close()
      targets.pop()
    }
    const result = {
      ...runFacts(load0, t0),
      warmupCalls: Number(values.warmup),
      calls,
      instructionsPerCall: perCall,
      mainThreadPerCall: mainPerCall,
      treeOverPlain: Number((perCall.tree / perCall.plain).toFixed(4)),
      againOverTree: Number((perCall.again / perCall.tree).toFixed(4)),
      mainThread: {
        treeOverPlain: Number((mainPerCall.tree / mainPerCall.plain).toFixed(4)),
        againOverTree: Number((mainPerCall.again / mainPerCall.tree).toFixed(4)),
      },
      treeEntriesPerCheckpoint: signedEntries(fixtures[0].dir).perCheckpoint,
      counted:
        "user-space instructions of every thread of the daemon (callgrind); the kernel's work in syscalls is not counted",
    }
    console.log(
      `tree/plain ${result.treeOverPlain}x (main thread ${result.mainThread.treeOverPlain}x); ` +
        `same build twice ${result.againOverTree}x (main thread ${result.mainThread.againOverTree}x); ` +
        `${calls} calls after ${values.warmup} warm-up calls; load ${result.loadAtStart} -> ${result.loadAtEnd}, ${result.seconds} s`,
    )
    writeFileSync(join(root, 'bench/results-audit-instructions.json'), `${JSON.stringify(result, null, 2)}\n`)
  }

  /** One daemon bundle from src/main.ts (as scripts/build.mjs makes dist/server.js); `plain` without the tree's hooks. */
  async function bundle(name, plain) {
    const daemonAudit = join(root, 'src/audit/daemonAudit.ts')
    const withoutTree = {
      name: 'plain-audit-log',
      setup(b) {
        b.onLoad({ filter: /[\\/]daemonAudit\.ts$/ }, (args) => {
          if (args.path !== daemonAudit) return undefined
          const source = readFileSync(daemonAudit, 'utf8')
          const hooks = /^\s*hooks: tree,\n/m
          const load = /^\s*tree\.load\(\)\n/m
          if (!hooks.test(source) || !load.test(source))
            throw new Error('src/audit/daemonAudit.ts no longer reads as this benchmark expects')
          const changed = source.replace(hooks, '').replace(load, '')
          return { contents: changed, loader: 'ts' }
        })
      },
    }
    const precompiledValidators = {
      name: 'precompiled-validators',
      setup(b) {
        b.onResolve({ filter: /^\.\/validationPrecompiled$/ }, (args) =>
          args.importer === join(root, 'src/validation.ts')
            ? { path: 'validationPrecompiled.generated.js', namespace: 'precompiled' }
            : undefined,
        )
        b.onLoad({ filter: /.*/, namespace: 'precompiled' }, () => ({
          contents: precompiled,
          loader: 'js',
          resolveDir: root,
        }))
      },
    }
    await build({
      entryPoints: { server: join(root, 'src/main.ts') },
      outdir: join(out, name),
      bundle: true,
      splitting: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      external: ['uWebSockets.js', 'bufferutil', 'utf-8-validate', 'esbuild', '@statelyai/inspect'],
      plugins: plain ? [precompiledValidators, withoutTree] : [precompiledValidators],
      define: { __BRIDGE_VERSION__: JSON.stringify(pkg.version) },
      banner: {
        js: [
          "import { createRequire as __bridgeCreateRequire } from 'node:module'",
          'const require = __bridgeCreateRequire(import.meta.url)',
        ].join('\n'),
      },
      logLevel: 'warning',
    })
    return join(out, name, 'server.js')
  }
} finally {
  for (const t of targets) await t.close()
  for (const fixture of fixtures) rmSync(fixture.dir, { recursive: true, force: true })
  if (values.keep) console.log(`kept ${out}`)
  else rmSync(out, { recursive: true, force: true })
}

/** When and where a run was taken: its date, Node, engine, the load at its start and end, its length. */
function runFacts(load0, t0) {
  return {
    date: new Date().toISOString(),
    node: process.version,
    engine: values.engine,
    loadAtStart: Number(load0.toFixed(1)),
    loadAtEnd: Number(loadavg()[0].toFixed(1)),
    seconds: Math.round((performance.now() - t0) / 1000),
  }
}

/** The tree daemon's entries and signed checkpoints (group commits and /audit reads), rotated files included. */
function signedEntries(dir) {
  const linesOf = (path) =>
    existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean).length : 0
  const entries = linesOf(join(dir, 'audit.log')) + linesOf(join(dir, 'audit.log.1'))
  const checkpoints = linesOf(join(dir, 'audit.checkpoints')) + linesOf(join(dir, 'audit.checkpoints.1'))
  return { entries, checkpoints, perCheckpoint: Number((entries / Math.max(1, checkpoints)).toFixed(2)) }
}

function median(xs) {
  const sorted = [...xs].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]
}

/** Median and quartiles, to three decimals. */
function spread(xs) {
  const sorted = [...xs].sort((a, b) => a - b)
  const q = (p) => Number(sorted[Math.floor((sorted.length - 1) * p)].toFixed(3))
  return { median: q(0.5), q1: q(0.25), q3: q(0.75) }
}
