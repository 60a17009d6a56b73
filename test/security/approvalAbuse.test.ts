/**
 * Approvals an agent tries to abuse, against the real daemon, the real MCP SDK client and a scripted
 * extension on /ws: hundreds of calls fired at once (200: past 256 open connections the daemon's
 * connection cap already closes the rest) from several sessions of one client (to bury the
 * side panel, or to race past the per-client cap), and "Always allow" answered on `browser_evaluate`
 * (arbitrary code in the user's pages must never become `auto` behind one click: the old panel offered
 * the button, and the user believed the tool was now allowed for good).
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { FakeExtension, READY, type WireMessage } from '../helpers/fakeExtension'
import { connectMcp, textOf, type McpConnection } from '../helpers/mcpClient'
import { runCli } from '../integration/cli/runCli'
import { auditEntries, startFixture, type Fixture } from '../integration/toolcall/fixture'

describe('approvals an agent abuses', () => {
  let fx: Fixture
  let token = ''
  const open: McpConnection[] = []
  let ext: FakeExtension | undefined

  beforeAll(async () => {
    fx = await startFixture(
      'node',
      {
        plugins: [{ name: 'notes', tools: [{ name: 'save', inputSchema: { type: 'object' } }] }],
        permissions: {
          notes: { permission: 'ask' },
          browser: { permission: 'auto', tools: { browser_evaluate: 'ask' } },
        },
      },
      { BRIDGE_APPROVAL_TIMEOUT_MS: '60000' },
    )
    const added = await runCli(
      ['client', 'add', 'flooder', '--json', '--port', String(fx.daemon.port)],
      fx.configDir,
    )
    token = (JSON.parse(added.stdout) as { token: string }).token
  })
  afterEach(async () => {
    await ext?.close()
    ext = undefined
  })
  afterAll(async () => {
    for (const connection of open) await connection.close().catch(() => undefined)
    await fx?.stop()
  })

  const connect = async (): Promise<McpConnection> => {
    const connection = await connectMcp({ url: fx.daemon.url, secret: token }, 'flooder')
    open.push(connection)
    return connection
  }
  const requests = (): WireMessage[] => ext?.received.filter((m) => m.method === 'confirmation.request') ?? []

  it('puts 20 of 200 calls fired at once from three sessions before the user, and refuses the rest at once', async () => {
    ext = await FakeExtension.connect(fx.daemon, { tabs: { notes: READY } })
    const sessions = [await connect(), await connect(), await connect()]
    const calls = Array.from({ length: 200 }, (_, i) =>
      sessions[i % 3]!.client.callTool({ name: 'notes_save', arguments: { n: i } }, undefined, {
        timeout: 120_000,
      }),
    )
    await expect.poll(() => requests().length, { timeout: 20_000 }).toBe(20)
    const settled = await Promise.all(
      calls.map((call) => Promise.race([call, new Promise((r) => setTimeout(() => r(null), 5_000))])),
    )
    const refused = settled.filter((r) => r !== null && textOf(r).startsWith('[approval_queue_full]'))
    expect(refused).toHaveLength(180)
    expect(requests()).toHaveLength(20)
    for (const request of requests()) ext.approve(request.params!.id as string, 'deny')
    const denied = await Promise.all(calls)
    expect(denied.filter((r) => textOf(r).startsWith('[approval_denied]'))).toHaveLength(20)
    const full = (await auditEntries(fx.daemon)).filter((e) => e.error?.code === 'approval_queue_full')
    expect(full).toHaveLength(180)
  })

  it('does not offer "Always allow" for browser_evaluate, and an allow_always answer runs it once only', async () => {
    ext = await FakeExtension.connect(fx.daemon, { tabs: { notes: READY } })
    const agent = await connect()
    const first = agent.client.callTool({ name: 'browser_evaluate', arguments: { expression: '1 + 1' } })
    await expect.poll(() => requests().length, { timeout: 10_000 }).toBe(1)
    const request = requests()[0]!
    expect(request.params).toMatchObject({ tool: 'browser_evaluate', allowAlways: false })
    ext.approve(request.params!.id as string, 'allow_always')
    ;(await ext.nextDispatch()).succeed({ value: 2 })
    expect((await first).isError).toBeFalsy()
    // Still ask: the config on disk did not change, and the next call waits for the user again.
    const config = JSON.parse(readFileSync(join(fx.configDir, 'config.json'), 'utf8')) as {
      permissions: { browser: { tools: Record<string, string> } }
    }
    expect(config.permissions.browser.tools.browser_evaluate).toBe('ask')
    const second = agent.client.callTool({ name: 'browser_evaluate', arguments: { expression: '2 + 2' } })
    await expect.poll(() => requests().length, { timeout: 10_000 }).toBe(2)
    ext.approve(requests()[1]!.params!.id as string, 'deny')
    expect(textOf(await second)).toMatch(/^\[approval_denied\]/)
    // Any other ask tool keeps its Always allow.
    const save = agent.client.callTool({ name: 'notes_save', arguments: {} })
    await expect.poll(() => requests().length, { timeout: 10_000 }).toBe(3)
    expect(requests()[2]!.params).not.toHaveProperty('allowAlways')
    ext.approve(requests()[2]!.params!.id as string, 'deny')
    await save
  })
})
