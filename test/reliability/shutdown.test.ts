/**
 * SIGTERM with 50 calls in flight: new requests are refused, the calls in flight finish or fail with
 * a clear error, each is audited and on disk, and the process exits 0 within 5 s.
 */
import { rmSync } from 'node:fs'
import { afterAll, describe, expect, it } from 'vitest'
import { startDaemon, tempConfigDir, type RunningDaemon } from '../helpers/daemon'
import { FakeExtension, READY, type Dispatch } from '../helpers/fakeExtension'
import { connectMcp, textOf, type McpConnection } from '../helpers/mcpClient'
import { echoPlugin, exitOf, readAuditLog, report, writeConfig } from './support'

const PLUGINS = Array.from({ length: 10 }, (_, i) => `p${i}`)
const CALLS = 50
const tabs = Object.fromEntries(PLUGINS.map((name) => [name, READY]))

describe('shutdown under load', () => {
  let configDir: string
  let daemon: RunningDaemon | undefined
  const clients: McpConnection[] = []
  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => undefined)
    await daemon?.stop()
    rmSync(configDir, { recursive: true, force: true })
  })

  it('refuses new requests, answers and audits all 50 calls in flight, syncs the audit log and exits 0 within 5 s', async () => {
    configDir = tempConfigDir()
    writeConfig(configDir, {
      plugins: PLUGINS.map((name) => echoPlugin(name, 1)),
      permissions: Object.fromEntries(PLUGINS.map((name) => [name, { permission: 'auto' }])),
    })
    daemon = await startDaemon({ configDir, timeoutMs: 30_000 })
    for (let i = 0; i < 5; i++) clients.push(await connectMcp(daemon, `client-${i}`))
    const ext = await FakeExtension.connect(daemon, { tabs })
    const calls = Array.from({ length: CALLS }, (_, i) =>
      clients[i % clients.length]!.client.callTool({
        name: `${PLUGINS[i % PLUGINS.length]}_t0`,
        arguments: { n: i },
      }).then(
        (result) => ({ ok: true as const, result }),
        (error: unknown) => ({ ok: false as const, error: String(error) }),
      ),
    )
    const inFlight: Dispatch[] = []
    for (let i = 0; i < CALLS; i++) inFlight.push(await ext.nextDispatch(30_000))

    const signalledAt = Date.now()
    daemon.proc.kill('SIGTERM')
    const exited = exitOf(daemon).then((code) => ({ code, ms: Date.now() - signalledAt }))
    await daemon.waitForOutput(/SIGTERM received, shutting down/, 5_000)
    // Half the calls get their answer from the extension after the signal; the rest never do.
    for (const dispatch of inFlight.slice(0, CALLS / 2)) dispatch.succeed(dispatch.params.input)
    // A request that arrives now is refused (no new session, no new call).
    const late = await daemon
      .fetch('/mcp', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: '2025-06-18',
            capabilities: {},
            clientInfo: { name: 'late', version: '1' },
          },
        }),
      })
      .then(
        (res) => res.status,
        () => 'refused',
      )
    expect(late === 'refused' || late === 503, `late request answered ${late}`).toBe(true)

    const { code, ms: exitMs } = await exited
    const outcomes = await Promise.all(calls)
    const answeredWithin = Date.now() - signalledAt
    expect(code).toBe(0)
    expect(exitMs).toBeLessThan(5_000)
    expect(answeredWithin).toBeLessThan(6_000)

    const answered = new Set(inFlight.slice(0, CALLS / 2).map((d) => (d.params.input as { n: number }).n))
    let finished = 0
    let failedClearly = 0
    outcomes.forEach((outcome, n) => {
      expect(outcome.ok, `call ${n} got an MCP answer`).toBe(true)
      if (!outcome.ok) return
      if (answered.has(n) && !outcome.result.isError) {
        expect(textOf(outcome.result)).toBe(`{"n":${n}}`)
        finished++
      } else {
        expect(outcome.result.isError).toBe(true)
        expect(textOf(outcome.result)).toMatch(/^\[shutting_down\] the daemon is shutting down/)
        failedClearly++
      }
    })
    expect(finished + failedClearly).toBe(CALLS)

    // Every call is in the synced disk log exactly once, with the outcome its client saw.
    const audit = readAuditLog(configDir)
    expect(audit.torn).toBe(0)
    const entries = audit.lines.map((line) => line.entry!)
    expect(entries).toHaveLength(CALLS)
    expect(entries.filter((e) => e.success)).toHaveLength(finished)
    expect(entries.filter((e) => e.error?.code === 'shutting_down')).toHaveLength(failedClearly)
    expect(daemon.output()).toMatch(/bridge stopped/)

    report('shutdown under load', {
      inFlight: CALLS,
      finished,
      failedClearly,
      lateRequest: late,
      exitMs,
      answeredWithin,
    })
  }, 120_000)
})
