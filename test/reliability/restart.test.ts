/**
 * The daemon is killed and started again on the same port while an MCP client and the extension are
 * connected: the client's old session is gone (404) and a new one works, the extension comes back
 * within its backoff, and the audit summary carries on from the disk log.
 */
import { rmSync } from 'node:fs'
import { afterAll, describe, expect, it } from 'vitest'
import { startDaemon, tempConfigDir, type RunningDaemon } from '../helpers/daemon'
import { FakeExtension, READY } from '../helpers/fakeExtension'
import { connectMcp, textOf, type McpConnection } from '../helpers/mcpClient'
import { echoPlugin, kill9, report, sleep, writeConfig } from './support'

/** The extension's reconnect schedule (SPEC): 1, 2, 4, 8 s ... capped at 30 s, reset after a success. */
const BACKOFF_MS = [1_000, 2_000, 4_000, 8_000, 16_000, 30_000]
const echo = (params: { input: unknown }) => params.input

/** A scripted extension that reconnects like the real one, and records when it got back. */
function reconnectingExtension(daemon: { port: number; secret: string }) {
  let current: FakeExtension | undefined
  let stopped = false
  const connections: { at: number; attempts: number }[] = []
  const loop = async () => {
    for (;;) {
      let attempts = 0
      for (;;) {
        if (stopped) return
        attempts++
        try {
          current = await FakeExtension.connect(daemon, { tabs: { echo: READY }, autoAnswer: echo })
          break
        } catch {
          await sleep(BACKOFF_MS[Math.min(attempts - 1, BACKOFF_MS.length - 1)]!)
        }
      }
      connections.push({ at: Date.now(), attempts })
      await current.closed
      if (stopped) return
      // Lost: wait the first step before trying (the real extension does the same).
      await sleep(BACKOFF_MS[0]!)
    }
  }
  const running = loop()
  return {
    connections,
    async stop() {
      stopped = true
      await current?.close()
      await running
    },
  }
}

describe('restart', () => {
  const dirs: string[] = []
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
  })

  it('gives the old MCP session 404, lets clients and the extension reconnect, and keeps the audit summary', async () => {
    const configDir = tempConfigDir()
    dirs.push(configDir)
    writeConfig(configDir, {
      plugins: [echoPlugin('echo', 1)],
      permissions: { echo: { permission: 'auto' } },
    })
    let daemon: RunningDaemon = await startDaemon({ configDir, timeoutMs: 30_000 })
    const port = daemon.port
    const ext = reconnectingExtension(daemon)
    let mcp: McpConnection | undefined
    try {
      mcp = await connectMcp(daemon)
      while (ext.connections.length === 0) await sleep(20)
      for (let n = 0; n < 20; n++)
        expect(textOf(await mcp.client.callTool({ name: 'echo_t0', arguments: { n } }))).toBe(`{"n":${n}}`)
      const before = (await (await daemon.fetch('/health')).json()) as { auditSummary: Summary }
      expect(before.auditSummary.totalInvocations).toBe(20)
      const oldSession = mcp.transport.sessionId
      expect(oldSession).toBeTruthy()

      await kill9(daemon)
      daemon = await startDaemon({ configDir, env: { PORT: String(port) }, timeoutMs: 30_000 })
      const listeningAt = Date.now()
      expect(daemon.port).toBe(port)

      // The old session: 404 from the new daemon, and the SDK client sees the call fail.
      const stale = await daemon.fetch('/mcp', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': oldSession!,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      })
      expect(stale.status).toBe(404)
      await expect(mcp.client.callTool({ name: 'echo_t0', arguments: { n: 1 } })).rejects.toThrow()
      await mcp.client.close()
      mcp = await connectMcp(daemon)
      expect(mcp.transport.sessionId).not.toBe(oldSession)

      // The extension is back within one step of its backoff.
      while (ext.connections.length < 2) await sleep(20)
      const back = ext.connections[1]!
      const reconnectMs = back.at - listeningAt
      const allowed = BACKOFF_MS.slice(0, back.attempts).reduce((a, b) => a + b, 0) + 2_000
      expect(reconnectMs).toBeLessThan(allowed)
      expect(textOf(await mcp.client.callTool({ name: 'echo_t0', arguments: { n: 21 } }))).toBe('{"n":21}')

      const after = (await (await daemon.fetch('/health')).json()) as { auditSummary: Summary }
      expect(after.auditSummary).toMatchObject({
        totalInvocations: 21,
        successCount: 21,
        failureCount: 0,
        last24h: { total: 21, success: 21, failure: 0 },
      })
      report('restart', {
        extensionBackAfterMs: reconnectMs,
        extensionAttempts: back.attempts,
        auditSummaryBefore: before.auditSummary.totalInvocations,
        auditSummaryAfter: after.auditSummary.totalInvocations,
      })
    } finally {
      await mcp?.close().catch(() => undefined)
      await ext.stop()
      await daemon.stop()
    }
  }, 120_000)
})

interface Summary {
  totalInvocations: number
  successCount: number
  failureCount: number
  last24h: { total: number; success: number; failure: number }
}
