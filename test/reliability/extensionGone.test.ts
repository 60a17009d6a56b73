/**
 * The extension's socket drops with 50 calls in flight across plugins: every call answers
 * extension_disconnected at once, each is audited once, and nothing from before the drop runs again
 * after the extension reconnects.
 */
import { rmSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startDaemon, tempConfigDir, type RunningDaemon } from '../helpers/daemon'
import { FakeExtension, READY, type Dispatch } from '../helpers/fakeExtension'
import { connectMcp, textOf, type McpConnection } from '../helpers/mcpClient'
import { auditEntries } from '../integration/toolcall/fixture'
import { echoPlugin, latency, report, sleep, writeConfig } from './support'

const PLUGINS = Array.from({ length: 10 }, (_, i) => `p${i}`)
const CALLS = 50
const tabs = Object.fromEntries(PLUGINS.map((name) => [name, READY]))

describe('extension gone mid-call', () => {
  let configDir: string
  let daemon: RunningDaemon
  const clients: McpConnection[] = []

  beforeAll(async () => {
    configDir = tempConfigDir()
    writeConfig(configDir, {
      plugins: PLUGINS.map((name) => echoPlugin(name, 1)),
      permissions: Object.fromEntries(PLUGINS.map((name) => [name, { permission: 'auto' }])),
    })
    daemon = await startDaemon({ configDir, timeoutMs: 30_000 })
    for (let i = 0; i < 5; i++) clients.push(await connectMcp(daemon, `client-${i}`))
  })
  afterAll(async () => {
    for (const client of clients) await client.close()
    await daemon?.stop()
    rmSync(configDir, { recursive: true, force: true })
  })

  it('answers 50 in-flight calls with extension_disconnected within 1 s, audits each once, and never dispatches them again', async () => {
    const ext = await FakeExtension.connect(daemon, { tabs })
    // 5 calls per plugin (its limit), spread over 5 MCP sessions.
    const answeredAt: number[] = []
    const calls = Array.from({ length: CALLS }, (_, i) =>
      clients[i % clients.length]!.client.callTool({
        name: `${PLUGINS[i % PLUGINS.length]}_t0`,
        arguments: { n: i },
      }).then((result) => {
        answeredAt[i] = Date.now()
        return result
      }),
    )
    const inFlight: Dispatch[] = []
    for (let i = 0; i < CALLS; i++) inFlight.push(await ext.nextDispatch(30_000))
    const oldIds = new Set(inFlight.map((d) => d.params.dispatchId))
    expect(oldIds.size).toBe(CALLS)

    // A crashed browser: the TCP connection goes without a close frame.
    const droppedAt = Date.now()
    ext.terminate()
    const results = await Promise.all(calls)
    const waits = answeredAt.map((at) => at - droppedAt)
    for (const result of results) {
      expect(result.isError).toBe(true)
      expect(textOf(result)).toBe('[extension_disconnected] the extension disconnected during the call')
    }
    expect(Math.max(...waits)).toBeLessThan(1_000)

    const audit = await auditEntries(daemon)
    expect(audit).toHaveLength(CALLS)
    for (const name of PLUGINS) {
      const mine = audit.filter((entry) => entry.tool === `${name}_t0`)
      expect(mine).toHaveLength(CALLS / PLUGINS.length)
      for (const entry of mine) expect(entry.error).toMatchObject({ code: 'extension_disconnected' })
    }

    // The extension comes back. A new call goes out on the new socket; then old answers and progress
    // for the dropped calls arrive on it (same JSON-RPC ids as before): they must change nothing.
    const back = await FakeExtension.connect(daemon, { tabs })
    await sleep(500)
    expect(back.received.filter((m) => m.method === 'tool.dispatch')).toEqual([])
    const fresh = clients[0]!.client.callTool({ name: 'p0_t0', arguments: { n: 999 } })
    const dispatch = await back.nextDispatch(10_000)
    expect(dispatch.params.input).toEqual({ n: 999 })
    expect(oldIds.has(dispatch.params.dispatchId)).toBe(false)
    for (const old of inFlight) {
      back.sendRaw(JSON.stringify({ jsonrpc: '2.0', id: old.id, result: { output: { late: true } } }))
      back.notify('tool.progress', { dispatchId: old.params.dispatchId, progress: 1 })
    }
    await sleep(300)
    dispatch.succeed({ n: 999 })
    expect(textOf(await fresh)).toBe('{"n":999}')
    await daemon.waitForOutput(/answer to an unknown or expired request was dropped/, 5_000)
    await sleep(500)
    const dispatchedAgain = back.received.filter(
      (m) => m.method === 'tool.dispatch' && oldIds.has(String(m.params?.dispatchId)),
    )
    expect(dispatchedAgain).toEqual([])
    expect(await auditEntries(daemon)).toHaveLength(CALLS + 1)
    await back.close()

    report('extension gone mid-call', {
      calls: CALLS,
      answerAfterDropMs: latency(waits),
      auditEntries: audit.length,
      redispatched: dispatchedAgain.length,
    })
  }, 120_000)
})
