// Benchmark: `bridge audit verify` on a 1,000,000-entry audit log (one file, canonical entry lines,
// a key and a kept checkpoint), as a user would run it: the built CLI, timed from start to exit.
// Beside it, two floors: `sha256sum` of the same file (reading and hashing its bytes once), and one
// SHA-256 per line in Node (the least a per-entry check does; the tree adds one node hash per entry).
// Then the memory the daemon keeps for the log: the built daemon started on the same folder and on an
// empty one, each asked for a signed checkpoint (the witness's read of the files), then a full GC in
// each: the difference of heap + array buffers is what the 1,000,000 entries cost it.
// Prints the figures and saves bench/results-audit-verify.json. Never fails on time.
//
//   node bench/auditVerify.mjs [--entries 1000000]
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { generateKeyPairSync, hash } from 'node:crypto'
import {
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
  openSync,
  writeSync,
  closeSync,
} from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir, loadavg } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { performance } from 'node:perf_hooks'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const cli = join(root, 'dist/cli/bridge.js')
const at = process.argv.indexOf('--entries')
const entries = at > 0 ? Number(process.argv[at + 1]) : 1_000_000
const dir = mkdtempSync(join(tmpdir(), 'bridge-bench-audit-'))
const env = { ...process.env, BRIDGE_CONFIG_DIR: dir, BRIDGE_PORT: '1' }
try {
  const key = generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' })
  writeFileSync(join(dir, 'audit.key'), key, { mode: 0o600 })
  const fd = openSync(join(dir, 'audit.log'), 'w', 0o600)
  const start = Date.UTC(2026, 0, 1)
  let chunk = ''
  for (let i = 0; i < entries; i++) {
    // Keys in canonical (sorted) order, as the daemon writes them.
    chunk += `{"client":"agent","durationMs":${i % 97},"plugin":"notes","success":true,"timestamp":"${new Date(start + i * 1000).toISOString()}","tool":"notes_list_notes"}\n`
    if (chunk.length > 1 << 20) {
      writeSync(fd, chunk)
      chunk = ''
    }
  }
  writeSync(fd, chunk)
  closeSync(fd)
  const bytes = statSync(join(dir, 'audit.log')).size
  const checkpoint = execFileSync(process.execPath, [cli, 'audit', 'checkpoint'], { env, encoding: 'utf8' })
  writeFileSync(join(dir, 'kept.json'), checkpoint)

  const t0 = performance.now()
  const floor = spawnSync('sha256sum', [join(dir, 'audit.log')], { encoding: 'utf8' })
  const floorMs = performance.now() - t0
  const t2 = performance.now()
  const text = readFileSync(join(dir, 'audit.log'))
  for (let start = 0; start < text.length;) {
    let end = text.indexOf(10, start)
    if (end < 0) end = text.length
    hash('sha256', text.subarray(start, end), 'buffer')
    start = end + 1
  }
  const perLineMs = performance.now() - t2
  const t1 = performance.now()
  const verify = spawnSync(process.execPath, [cli, 'audit', 'verify', '--from', join(dir, 'kept.json')], {
    env,
    encoding: 'utf8',
  })
  const verifyMs = performance.now() - t1
  if (verify.status !== 0 || floor.status !== 0)
    throw new Error(`verify failed: ${verify.stderr}${floor.stderr}`)
  const empty = mkdtempSync(join(tmpdir(), 'bridge-bench-audit-empty-'))
  let memory
  try {
    const without = await daemonMemory(empty)
    const withLog = await daemonMemory(dir)
    const kept = withLog.heapUsed + withLog.arrayBuffers - (without.heapUsed + without.arrayBuffers)
    memory = {
      emptyLog: without,
      millionEntries: withLog,
      keptBytes: kept,
      keptBytesPerEntry: Number((kept / entries).toFixed(2)),
    }
  } finally {
    rmSync(empty, { recursive: true, force: true })
  }
  const result = {
    date: new Date().toISOString(),
    load: loadavg()[0],
    entries,
    bytes,
    verifyMs: Math.round(verifyMs),
    sha256sumMs: Math.round(floorMs),
    ratio: Number((verifyMs / floorMs).toFixed(1)),
    perLineSha256Ms: Math.round(perLineMs),
    perLineRatio: Number((verifyMs / perLineMs).toFixed(1)),
    output: verify.stdout.trim(),
    daemonMemory: memory,
  }
  console.log(
    `bridge audit verify, ${entries} entries (${(bytes / 1e6).toFixed(0)} MB): ${result.verifyMs} ms; ` +
      `sha256sum of the file: ${result.sha256sumMs} ms (${result.ratio}x); ` +
      `one SHA-256 per line in Node: ${result.perLineSha256Ms} ms (${result.perLineRatio}x)`,
  )
  console.log(
    `daemon heap + array buffers after a full GC, with the ${entries}-entry log beside an empty one: ` +
      `${(memory.keptBytes / 1e6).toFixed(2)} MB more (${memory.keptBytesPerEntry} bytes per entry)`,
  )
  writeFileSync(join(root, 'bench/results-audit-verify.json'), `${JSON.stringify(result, null, 2)}\n`)
} finally {
  rmSync(dir, { recursive: true, force: true })
}

/**
 * The daemon (dist/server.js) on `configDir`: started, asked for a signed checkpoint (it reads and
 * hashes the files), then a full GC (bench/memHook.mjs); its memory figures, and it is stopped.
 */
async function daemonMemory(configDir) {
  const port = await new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })
  const proc = spawn(
    process.execPath,
    ['--expose-gc', '--import', join(root, 'bench/memHook.mjs'), join(root, 'dist/server.js')],
    {
      env: {
        ...process.env,
        BRIDGE_CONFIG_DIR: configDir,
        PORT: String(port),
        BRIDGE_SKIP_REGISTRY_DISCOVERY: '1',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  )
  let err = ''
  proc.stderr.on('data', (d) => (err += d))
  try {
    const url = `http://127.0.0.1:${port}`
    const t0 = performance.now()
    for (;;) {
      if (proc.exitCode !== null) throw new Error(`the daemon exited: ${err}`)
      const ok = await fetch(`${url}/health`).then(
        (r) => r.ok,
        () => false,
      )
      if (ok) break
      if (performance.now() - t0 > 600_000) throw new Error(`the daemon did not start: ${err}`)
      await new Promise((r) => setTimeout(r, 50))
    }
    const { secret } = JSON.parse(readFileSync(join(configDir, 'extension/auth.json'), 'utf8'))
    const checkpoint = await fetch(`${url}/audit/checkpoint`, {
      headers: { authorization: `Bearer ${secret}` },
    })
    if (!checkpoint.ok)
      throw new Error(`GET /audit/checkpoint: ${checkpoint.status} ${await checkpoint.text()}`)
    await checkpoint.json()
    const before = err.length
    proc.kill('SIGUSR2')
    for (;;) {
      const at = err.indexOf('bench-mem ', before)
      const end = at < 0 ? -1 : err.indexOf('\n', at)
      if (end > 0) return JSON.parse(err.slice(at + 10, end))
      if (proc.exitCode !== null) throw new Error(`the daemon exited: ${err}`)
      await new Promise((r) => setTimeout(r, 50))
    }
  } finally {
    if (proc.exitCode === null) {
      proc.kill('SIGTERM')
      await new Promise((r) => proc.once('exit', r))
    }
  }
}
