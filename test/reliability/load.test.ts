/**
 * 10,000 calls at 50 in flight through 5 MCP sessions: each answered once with the output of its own
 * arguments and audited once, the concurrency limit answering plugin_busy and nothing else; afterwards
 * RSS, open file descriptors, actors and timers are back where they were.
 */
import { readdirSync, readFileSync, rmSync } from 'node:fs'
import { afterAll, describe, expect, it } from 'vitest'
import { startDaemon, tempConfigDir, type RunningDaemon } from '../helpers/daemon'
import { FakeExtension, READY } from '../helpers/fakeExtension'
import { connectMcp, textOf, type McpConnection } from '../helpers/mcpClient'
import { echoPlugin, latency, readAuditLog, report, sleep, writeConfig } from './support'

const PLUGINS = Array.from({ length: 10 }, (_, i) => `p${i}`)
const CALLS = 10_000
const IN_FLIGHT = 50
const WARM_UP = 1_000
/** Past the server's keep-alive timeout (5 s): idle client connections are closed by then. */
const SETTLE_MS = 6_000
const tabs = Object.fromEntries(PLUGINS.map((name) => [name, READY]))

interface Levels {
  /** CPU time the daemon used so far (user + system). */
  cpuSeconds: number
  rssMb: number
  heapUsedMb: number
  externalMb: number
  fds: number
  actors: number
  timers: number
}

async function levels(daemon: RunningDaemon): Promise<Levels> {
  const health = (await (await daemon.fetch('/health')).json()) as {
    diagnostics: { actors: number; timers: number; heapUsedBytes: number; externalBytes: number }
  }
  const status = readFileSync(`/proc/${daemon.proc.pid}/status`, 'utf8')
  const rssKb = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1])
  // Fields 14 and 15 of /proc/<pid>/stat (after the parenthesised name): utime, stime in clock ticks.
  const stat = readFileSync(`/proc/${daemon.proc.pid}/stat`, 'utf8')
  const [utime = 0, stime = 0] = stat
    .slice(stat.lastIndexOf(')') + 2)
    .split(' ')
    .slice(11, 13)
    .map(Number)
  return {
    cpuSeconds: Math.round(utime + stime) / 100,
    rssMb: Math.round(rssKb / 1024),
    heapUsedMb: Math.round(health.diagnostics.heapUsedBytes / 1024 / 1024),
    externalMb: Math.round(health.diagnostics.externalBytes / 1024 / 1024),
    fds: readdirSync(`/proc/${daemon.proc.pid}/fd`).length,
    actors: health.diagnostics.actors,
    timers: health.diagnostics.timers,
  }
}

describe('load', () => {
  let configDir: string
  let daemon: RunningDaemon | undefined
  const clients: McpConnection[] = []
  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => undefined)
    await daemon?.stop()
    rmSync(configDir, { recursive: true, force: true })
  })

  it('answers 10,000 calls at 50 in flight once each with their own output, audits each once, and leaks nothing', async () => {
    configDir = tempConfigDir()
    writeConfig(configDir, {
      plugins: PLUGINS.map((name) => echoPlugin(name, 1)),
      permissions: Object.fromEntries(PLUGINS.map((name) => [name, { permission: 'auto' }])),
    })
    // --expose-gc: diagnostics collect garbage first, so the levels are what the daemon still holds.
    daemon = await startDaemon({
      configDir,
      env: { BRIDGE_DIAGNOSTICS: '1', NODE_OPTIONS: '--expose-gc' },
      timeoutMs: 30_000,
    })
    const dispatched = new Map<number, number>()
    const ext = await FakeExtension.connect(daemon, {
      tabs,
      autoAnswer: (params) => {
        const { n } = params.input as { n: number }
        dispatched.set(n, (dispatched.get(n) ?? 0) + 1)
        return { n, plugin: params.plugin }
      },
    })
    for (let i = 0; i < 5; i++) clients.push(await connectMcp(daemon, `client-${i}`))

    const outcomes = new Map<number, string>()
    const problems: string[] = []
    const times: number[] = []
    let next = 0
    const run = async (first: number, last: number) => {
      next = first
      const worker = async (w: number) => {
        for (let n = next++; n < last; n = next++) {
          const plugin = PLUGINS[(n + CALLS) % PLUGINS.length]!
          const started = performance.now()
          const result = await clients[w % clients.length]!.client.callTool({
            name: `${plugin}_t0`,
            arguments: { n },
          })
          times.push(performance.now() - started)
          const text = textOf(result)
          if (outcomes.has(n)) problems.push(`call ${n} answered twice`)
          if (!result.isError && text === JSON.stringify({ n, plugin })) outcomes.set(n, 'ok')
          else if (result.isError && text.startsWith('[plugin_busy] ')) outcomes.set(n, 'busy')
          else problems.push(`call ${n}: ${text.slice(0, 200)}`)
        }
      }
      await Promise.all(Array.from({ length: IN_FLIGHT }, (_, w) => worker(w)))
    }

    // Warm up (lazy compilation, pools), then take the levels the run must come back to.
    await run(-WARM_UP, 0)
    await sleep(SETTLE_MS)
    const before = await levels(daemon)
    times.length = 0
    const started = Date.now()
    await run(0, CALLS)
    const seconds = (Date.now() - started) / 1000
    await sleep(SETTLE_MS)
    const after = await levels(daemon)
    const ok = [...outcomes.entries()].filter(([n, outcome]) => n >= 0 && outcome === 'ok').length
    const busy = [...outcomes.entries()].filter(([n, outcome]) => n >= 0 && outcome === 'busy').length
    report('load', {
      calls: CALLS,
      inFlight: IN_FLIGHT,
      ok,
      pluginBusy: busy,
      callsPerSecond: Math.round(CALLS / seconds),
      latencyMs: latency(times),
      before,
      after,
    })

    expect(problems).toEqual([])
    for (let n = 0; n < CALLS; n++) {
      const outcome = outcomes.get(n)
      expect(outcome, `call ${n} answered`).toBeDefined()
      if (outcome === 'ok') {
        expect(dispatched.get(n), `call ${n} dispatched once`).toBe(1)
      } else {
        expect(dispatched.has(n), `busy call ${n} never dispatched`).toBe(false)
      }
    }
    // One audit entry per call (warm-up included), and no other line.
    const audit = readAuditLog(configDir)
    expect(audit.torn).toBe(0)
    expect(audit.lines).toHaveLength(CALLS + WARM_UP)
    const entries = audit.lines.map((line) => line.entry!)
    const okAll = [...outcomes.values()].filter((outcome) => outcome === 'ok').length
    expect(entries.filter((e) => e.success)).toHaveLength(okAll)
    expect(entries.filter((e) => !e.success).every((e) => e.error?.code === 'plugin_busy')).toBe(true)

    expect(after.fds, 'open file descriptors').toBeLessThanOrEqual(before.fds)
    expect(after.actors, 'actors in the root system').toBeLessThanOrEqual(before.actors)
    expect(after.timers, 'active timers').toBeLessThanOrEqual(before.timers)
    // After a full GC the heap and the buffers outside it hold what they held before. RSS does not
    // shrink back (the allocator keeps freed pages for reuse): it is printed and only bounded.
    expect(after.heapUsedMb, 'heap in use (MB)').toBeLessThanOrEqual(before.heapUsedMb + 5)
    expect(after.externalMb, 'external memory (MB)').toBeLessThanOrEqual(before.externalMb + 5)
    expect(after.rssMb, 'RSS (MB)').toBeLessThan(before.rssMb + 128)
    await ext.close()
  }, 300_000)
})
