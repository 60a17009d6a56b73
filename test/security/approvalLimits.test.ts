/**
 * Attacks an agent can make with nothing but its own client token: bury the side panel under
 * approval requests (the user cannot find the real one, and other agents' requests drown), lock every
 * other client out by opening sessions, send arguments nested deep enough to exhaust the daemon's
 * stack, and get the user asked about a call that cannot run anyway. Each one is refused at once, and
 * only for the client that tried it.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { CLOSED, FakeExtension, READY, type WireMessage } from '../helpers/fakeExtension'
import { connectMcp, textOf, type McpConnection } from '../helpers/mcpClient'
import { runCli } from '../integration/cli/runCli'
import { auditEntries, startFixture, type Fixture } from '../integration/toolcall/fixture'

describe('approvals and sessions are bounded per client', () => {
  let fx: Fixture
  const tokens: Record<string, string> = {}
  const open: McpConnection[] = []
  let ext: FakeExtension | undefined

  beforeAll(async () => {
    fx = await startFixture(
      'node',
      {
        plugins: [
          { name: 'notes', tools: [{ name: 'save', inputSchema: { type: 'object' } }] },
          { name: 'mail', tools: [{ name: 'send' }] },
        ],
        permissions: { notes: { permission: 'ask' }, mail: { permission: 'ask' } },
      },
      { BRIDGE_APPROVAL_TIMEOUT_MS: '60000' },
    )
    for (const name of ['flooder', 'bystander', 'third']) {
      const added = await runCli(
        ['client', 'add', name, '--json', '--port', String(fx.daemon.port)],
        fx.configDir,
      )
      expect(added.code).toBe(0)
      tokens[name] = (JSON.parse(added.stdout) as { token: string }).token
    }
  })
  afterEach(async () => {
    await ext?.close()
    ext = undefined
  })
  afterAll(async () => {
    for (const connection of open) await connection.close().catch(() => undefined)
    await fx?.stop()
  })

  const connectAs = async (name: string): Promise<McpConnection> => {
    const connection = await connectMcp({ url: fx.daemon.url, secret: tokens[name]! }, name)
    open.push(connection)
    return connection
  }
  const requests = (): WireMessage[] => ext?.received.filter((m) => m.method === 'confirmation.request') ?? []

  it('fails the 21st waiting call of one client at once with approval_queue_full; another client is still asked', async () => {
    ext = await FakeExtension.connect(fx.daemon, { tabs: { notes: READY, mail: READY } })
    const flooder = await connectAs('flooder')
    const waiting = Array.from({ length: 20 }, (_, i) =>
      flooder.client.callTool({ name: 'notes_save', arguments: { n: i } }),
    )
    await expect.poll(() => requests().length, { timeout: 10_000 }).toBe(20)
    const startedAt = Date.now()
    const refused = await flooder.client.callTool({ name: 'notes_save', arguments: { n: 21 } })
    expect(Date.now() - startedAt).toBeLessThan(2_000)
    expect(refused.isError).toBe(true)
    expect(textOf(refused)).toMatch(/^\[approval_queue_full\] /)
    expect(textOf(refused)).toContain('20 calls of flooder already wait for approval')
    expect(requests()).toHaveLength(20)

    const bystander = await connectAs('bystander')
    const asked = bystander.client.callTool({ name: 'mail_send', arguments: {} })
    await expect.poll(() => requests().length, { timeout: 10_000 }).toBe(21)
    const theirs = requests().at(-1)!
    expect(theirs.params).toMatchObject({ client: 'bystander', plugin: 'mail' })
    ext.notify('confirmation.response', { id: theirs.params!.id as string, decision: 'deny' })
    expect(textOf(await asked)).toMatch(/^\[approval_denied\]/)

    // Once the user answers one of the flooder's calls, it may ask again.
    const first = requests()[0]!
    ext.notify('confirmation.response', { id: first.params!.id as string, decision: 'deny' })
    await waiting[0]
    const again = flooder.client.callTool({ name: 'notes_save', arguments: { n: 22 } })
    await expect.poll(() => requests().length, { timeout: 10_000 }).toBe(22)
    for (const request of requests().slice(1))
      ext.notify('confirmation.response', { id: request.params!.id as string, decision: 'deny' })
    await Promise.all([again, ...waiting])
    const full = (await auditEntries(fx.daemon)).find((e) => e.error?.code === 'approval_queue_full')
    expect(full).toMatchObject({ tool: 'notes_save', client: 'flooder', error: { category: 'concurrency' } })
  })

  it('names the client and the tab the call will run in, and runs it only there', async () => {
    ext = await FakeExtension.connect(fx.daemon, {
      tabs: {
        notes: {
          state: 'ready',
          tabs: [
            { tabId: 7, url: 'http://127.0.0.1/other', title: 'Other notes', ready: true, rank: 1 },
            { tabId: 9, url: 'http://127.0.0.1/mine', title: 'My notes', ready: true, rank: 0 },
            { tabId: 11, url: 'http://127.0.0.1/loading', title: 'Loading', ready: false },
          ],
        },
      },
    })
    const third = await connectAs('third')
    const call = third.client.callTool({ name: 'notes_save', arguments: { title: 'x' } })
    await expect.poll(() => requests().length, { timeout: 10_000 }).toBe(1)
    const request = requests()[0]!
    expect(request.params).toMatchObject({
      client: 'third',
      plugin: 'notes',
      tab: { tabId: 9, title: 'My notes', url: 'http://127.0.0.1/mine' },
    })
    ext.notify('confirmation.response', { id: request.params!.id as string, decision: 'allow_once' })
    const dispatch = await ext.nextDispatch()
    expect(dispatch.params).toMatchObject({ tool: 'save', tabId: 9, client: 'third' })
    dispatch.succeed({ saved: true })
    expect(JSON.parse(textOf(await call))).toEqual({ saved: true })
  })

  it('fails a call that cannot run now at once, before anyone is asked', async () => {
    const third = await connectAs('third')
    const noExtension = await third.client.callTool({ name: 'notes_save', arguments: {} })
    expect(textOf(noExtension)).toMatch(/^\[extension_not_connected\]/)
    ext = await FakeExtension.connect(fx.daemon, {
      tabs: {
        notes: CLOSED,
        mail: {
          state: 'unavailable',
          tabs: [{ tabId: 3, url: 'http://127.0.0.1/', title: 'Mail', ready: false }],
        },
      },
    })
    const closed = await third.client.callTool({ name: 'notes_save', arguments: {} })
    expect(textOf(closed)).toMatch(/^\[tab_closed\] /)
    const unavailable = await third.client.callTool({ name: 'mail_send', arguments: {} })
    expect(textOf(unavailable)).toMatch(/^\[tab_unavailable\] /)
    expect(requests()).toEqual([])
  })

  it('refuses arguments nested deeper than 64 levels as invalid_input, before the schema and before asking', async () => {
    ext = await FakeExtension.connect(fx.daemon, { tabs: { notes: READY } })
    const third = await connectAs('third')
    let deep: unknown = {}
    for (let i = 1; i < 64; i++) deep = { d: deep }
    const tooDeep = await third.client.callTool({ name: 'notes_save', arguments: { d: deep } })
    expect(tooDeep.isError).toBe(true)
    expect(textOf(tooDeep)).toMatch(/^\[invalid_input\] .*nested deeper than 64 levels/)
    const ok = third.client.callTool({ name: 'notes_save', arguments: deep as Record<string, unknown> })
    await expect.poll(() => requests().length, { timeout: 10_000 }).toBe(1)
    ext.notify('confirmation.response', { id: requests()[0]!.params!.id as string, decision: 'deny' })
    expect(textOf(await ok)).toMatch(/^\[approval_denied\]/)
  })

  it('answers a session only to the client that opened it: another client’s token gets 404', async () => {
    const owner = await connectAs('third')
    const sessionId = owner.transport.sessionId!
    const listWith = (token: string) =>
      fx.daemon.fetch('/mcp', {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'mcp-session-id': sessionId,
          'mcp-protocol-version': '2025-06-18',
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} }),
      })
    expect((await listWith(tokens.bystander!)).status).toBe(404)
    expect((await listWith(tokens.third!)).status).toBe(200)
  })

  it('counts session creation per client: one client’s burst does not lock another out', async () => {
    const initialize = (token: string) =>
      fx.daemon.fetch('/mcp', {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: '2025-06-18',
            capabilities: {},
            clientInfo: { name: 'burst', version: '1' },
          },
        }),
      })
    // Earlier tests opened sessions as `flooder` and `third`; `bystander` opened one.
    const statuses: number[] = []
    for (let i = 0; i < 6; i++) statuses.push((await initialize(tokens.flooder!)).status)
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0)
    const limited = await initialize(tokens.flooder!)
    expect(limited.status).toBe(429)
    // When the oldest counted session leaves the minute's window: at most 60 s, less when it was opened
    // earlier in this file (a slow machine).
    const retryAfter = Number(limited.headers.get('retry-after'))
    expect(
      Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60,
      `Retry-After ${retryAfter}`,
    ).toBe(true)
    expect((await initialize(tokens.bystander!)).status).toBe(200)
  })
})
