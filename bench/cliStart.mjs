// Cold start through `bridge start` (the CLI in the foreground, as a user starts the daemon) beside the
// daemon's own entry (dist/server.js) and the floor, in alternating rounds; with --baseline <dir> the
// same two of another build (its dist/ folder) beside them. Time from spawn to the first 200 of
// `/health`; medians and ratios to the floor of the same run. Writes bench/results-cli-start.json.
//
//   node scripts/build.mjs && node bench/cliStart.mjs [--rounds 9] [--plugins 4] [--baseline bench/tmp/base/dist]
import { rmSync, writeFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { createConfigDir } from './fixtures.mjs'
import { startTarget } from './targets.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '9' },
    plugins: { type: 'string', default: '4' },
    baseline: { type: 'string' },
  },
})
const fixture = createConfigDir(Number(values.plugins))
const builds = {
  this: join(root, 'dist'),
  ...(values.baseline ? { baseline: resolve(values.baseline) } : {}),
}
const targets = { floor: { kind: 'floor', toolsFile: fixture.toolsFile } }
for (const [name, dist] of Object.entries(builds)) {
  targets[`${name}: server.js`] = { kind: 'node', server: join(dist, 'server.js') }
  targets[`${name}: bridge start`] = {
    kind: 'node',
    server: join(dist, 'cli/bridge.js'),
    args: ['start', '--port', '{port}'],
  }
}
const times = Object.fromEntries(Object.keys(targets).map((k) => [k, []]))
try {
  // The first start writes the config folder (secret, clients, extension files): not counted.
  await (await startTarget({ ...targets['this: bridge start'], configDir: fixture.dir, probe: false })).stop()
  for (let round = 0; round < Number(values.rounds); round++) {
    const order = Object.keys(targets)
    if (round % 2) order.reverse()
    for (const name of order) {
      const t = await startTarget({ ...targets[name], configDir: fixture.dir, probe: false })
      times[name].push(t.coldStartMs)
      await t.stop()
    }
  }
} finally {
  rmSync(fixture.dir, { recursive: true, force: true })
}
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1]
const floor = median(times.floor)
const rows = Object.entries(times).map(([name, xs]) => ({
  target: name,
  medianMs: Math.round(median(xs)),
  vsFloor: Math.round((median(xs) / floor) * 100) / 100,
  runs: xs.map(Math.round),
}))
for (const r of rows)
  console.log(`${r.target.padEnd(26)} ${String(r.medianMs).padStart(6)} ms  ${r.vsFloor}x the floor`)
const out = {
  date: new Date().toISOString(),
  load: loadavg().map((x) => Math.round(x * 10) / 10),
  plugins: Number(values.plugins),
  rows,
}
writeFileSync(join(root, 'bench/results-cli-start.json'), `${JSON.stringify(out, null, 2)}\n`)
