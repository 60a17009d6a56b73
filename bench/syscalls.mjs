// Syscalls of one server during sequential tool calls: starts the target (floor or the daemon on an
// engine), warms it up, then runs `strace -c -f` (or the strace arguments given after `--`) attached
// to it while the calls are made, and prints strace's summary (needs strace; as root in a container).
// First, without strace, the main thread's context switches per call (--no-strace: only those).
//
//   node scripts/build.mjs && node bench/syscalls.mjs [--engine node|uws|floor] [--calls 500] [--no-strace] [--concurrency 16] [--server <other dist/server.js>] [-- -e trace=write,writev]
import { spawn } from 'node:child_process'
import { readFileSync, rmSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { createConfigDir } from './fixtures.mjs'
import { callsInFlight, openCallTarget } from './targets.mjs'

const { values, positionals } = parseArgs({
  options: {
    engine: { type: 'string', default: 'node' },
    calls: { type: 'string', default: '500' },
    'no-strace': { type: 'boolean', default: false },
    server: { type: 'string' },
    concurrency: { type: 'string', default: '1' },
  },
  allowPositionals: true,
})
const calls = Number(values.calls)
const fixture = createConfigDir(4)
try {
  const {
    target: t,
    call,
    close,
  } = await openCallTarget(fixture, {
    kind: values.engine,
    ...(values.server ? { server: values.server } : {}),
  })
  // Context switches of the server's main thread: an involuntary one is a preemption (the thread was
  // runnable but another task got the CPU), e.g. by the peer a socket write just woke.
  const switches = () => {
    const status = readFileSync(`/proc/${t.pid}/task/${t.pid}/status`, 'utf8')
    const field = (name) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)[1])
    return { voluntary: field('voluntary_ctxt_switches'), involuntary: field('nonvoluntary_ctxt_switches') }
  }
  const s0 = switches()
  const c0 = performance.now()
  await callsInFlight(calls, Number(values.concurrency), call)
  const s1 = switches()
  console.log(
    `${calls} calls, ${values.engine}: ${((performance.now() - c0) / calls).toFixed(3)} ms per call; main thread per call: ` +
      `${((s1.voluntary - s0.voluntary) / calls).toFixed(2)} voluntary, ${((s1.involuntary - s0.involuntary) / calls).toFixed(2)} involuntary context switches`,
  )
  if (process.argv.includes('--no-strace')) {
    await close()
    process.exit(0)
  }
  const args = positionals.length ? positionals : ['-c', '-f']
  const strace = spawn('strace', [...args, '-p', String(t.pid)], { stdio: ['ignore', 'inherit', 'inherit'] })
  await new Promise((r) => setTimeout(r, 500)) // strace attaches to every thread
  const t0 = performance.now()
  for (let i = 0; i < calls; i++) await call()
  const ms = performance.now() - t0
  strace.kill('SIGINT')
  await new Promise((r) => strace.once('exit', r))
  console.log(`${calls} calls, ${values.engine}: ${(ms / calls).toFixed(3)} ms per call (under strace)`)
  await close()
} finally {
  rmSync(fixture.dir, { recursive: true, force: true })
}
