// Syscalls of one server during sequential tool calls: starts the target (floor or the daemon on an
// engine), warms it up, then runs `strace -c -f` (or the strace arguments given after `--`) attached
// to it while the calls are made, and prints strace's summary (needs strace; as root in a container).
//
//   node scripts/build.mjs && node bench/syscalls.mjs [--engine node|uws|floor] [--calls 500] [-- -e trace=write,writev]
import { spawn } from 'node:child_process'
import { rmSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { createConfigDir } from './fixtures.mjs'
import { connectClient, createExtension, startTarget } from './targets.mjs'

const { values, positionals } = parseArgs({
  options: { engine: { type: 'string', default: 'node' }, calls: { type: 'string', default: '500' } },
  allowPositionals: true,
})
const calls = Number(values.calls)
const fixture = createConfigDir(4)
try {
  const t = await startTarget({
    kind: values.engine,
    configDir: fixture.dir,
    toolsFile: fixture.toolsFile,
    probe: false,
  })
  const ext = createExtension(t)
  await ext.connect()
  const mcp = await connectClient(t)
  const call = (i) => mcp.client.callTool({ name: `${fixture.names[0]}_echo`, arguments: { text: `hello ${i}` } })
  for (let i = 0; i < 200; i++) await call(i)
  const args = positionals.length ? positionals : ['-c', '-f']
  const strace = spawn('strace', [...args, '-p', String(t.pid)], { stdio: ['ignore', 'inherit', 'inherit'] })
  await new Promise((r) => setTimeout(r, 500)) // strace attaches to every thread
  const t0 = performance.now()
  for (let i = 0; i < calls; i++) await call(i)
  const ms = performance.now() - t0
  strace.kill('SIGINT')
  await new Promise((r) => strace.once('exit', r))
  console.log(`${calls} calls, ${values.engine}: ${(ms / calls).toFixed(3)} ms per call (under strace)`)
  await mcp.close()
  ext.close()
  await t.stop()
} finally {
  rmSync(fixture.dir, { recursive: true, force: true })
}
