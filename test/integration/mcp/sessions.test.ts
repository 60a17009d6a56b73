import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ENGINES } from '../../helpers/daemon'
import { FakeExtension } from '../../helpers/fakeExtension'
import { connectMcp, textOf } from '../../helpers/mcpClient'
import { startFixture, type Fixture } from '../toolcall/fixture'

const initialize = (id: number) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  })
const mcpHeaders = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }

describe.each(ENGINES)('/mcp sessions (%s engine)', (engine) => {
  let fx: Fixture
  const health = async () => (await (await fx.daemon.fetch('/health')).json()) as { mcpSessions: number }

  beforeAll(async () => {
    fx = await startFixture(engine, { permissions: { browser: { tools: { browser_list_tabs: 'auto' } } } })
  })
  afterAll(async () => {
    await fx?.stop()
  })

  it('serves several clients at once, each in its own session, and DELETE closes one', async () => {
    const a = await connectMcp(fx.daemon, 'client-a')
    const b = await connectMcp(fx.daemon, 'client-b')
    expect(a.transport.sessionId).toMatch(/^[0-9a-f-]{36}$/)
    expect(b.transport.sessionId).not.toBe(a.transport.sessionId)
    expect((await health()).mcpSessions).toBe(2)
    const ext = await FakeExtension.connect(fx.daemon)
    const fromA = a.client.callTool({ name: 'browser_list_tabs', arguments: { urlContains: 'a' } })
    const fromB = b.client.callTool({ name: 'browser_list_tabs', arguments: { urlContains: 'b' } })
    const dispatches = [await ext.nextDispatch(), await ext.nextDispatch()]
    // Each answer names the URL its call asked for (a tab list: a built-in with a declared shape).
    const tabAt = (url: string) => ({
      tabId: 1,
      windowId: 1,
      url,
      title: '',
      active: true,
      status: 'complete',
    })
    for (const d of dispatches) {
      const { urlContains } = d.params.input as { urlContains: string }
      d.succeed({ tabs: [{ ...tabAt(`https://${urlContains}.test/`), focusedWindow: true }] })
    }
    const urls = async (call: typeof fromA) =>
      ((await call).structuredContent as { tabs: { url: string }[] }).tabs.map((tab) => tab.url)
    expect([await urls(fromA), await urls(fromB)]).toEqual([['https://a.test/'], ['https://b.test/']])
    await a.close()
    expect((await health()).mcpSessions).toBe(1)
    // The closed session is gone; the other one still works.
    const stale = await fx.daemon.fetch('/mcp', {
      method: 'POST',
      headers: { ...mcpHeaders, 'mcp-session-id': a.transport.sessionId ?? '' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
    })
    expect(stale.status).toBe(404)
    expect((await b.client.listTools()).tools.map((t) => t.name)).toEqual(['browser_list_tabs'])
    await b.close()
    await ext.close()
    expect((await health()).mcpSessions).toBe(0)
  })

  it('cancels the calls of a session that closes mid-call', async () => {
    const a = await connectMcp(fx.daemon, 'leaving')
    const ext = await FakeExtension.connect(fx.daemon)
    const pending = a.client.callTool({ name: 'browser_list_tabs', arguments: {} }).catch((e: unknown) => e)
    const dispatch = await ext.nextDispatch()
    await a.transport.terminateSession()
    const end = await ext.waitFor(
      'tool.invocationEnd',
      (m) => m.params?.dispatchId === dispatch.params.dispatchId,
    )
    expect(end.params).toMatchObject({ success: false })
    const audit = (await (await fx.daemon.fetch('/audit?limit=1')).json()) as { error?: { code: string } }[]
    expect(audit[0]?.error?.code).toBe('cancelled')
    await a.client.close()
    await pending
    await ext.close()
  })

  it('requires the session header after initialization (400) and knows no made-up session (404)', async () => {
    const missing = await fx.daemon.fetch('/mcp', {
      method: 'POST',
      headers: mcpHeaders,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    })
    expect(missing.status).toBe(400)
    const unknown = await fx.daemon.fetch('/mcp', {
      method: 'POST',
      headers: { ...mcpHeaders, 'mcp-session-id': '00000000-0000-4000-8000-000000000000' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    })
    expect(unknown.status).toBe(404)
    const garbage = await fx.daemon.fetch('/mcp', { method: 'POST', headers: mcpHeaders, body: '{not json' })
    expect(garbage.status).toBe(400)
    expect(await garbage.json()).toMatchObject({ error: { code: -32700 } })
  })

  it('answers malformed messages inside a session without losing the session', async () => {
    const a = await connectMcp(fx.daemon, 'careless')
    const sessionId = a.transport.sessionId ?? ''
    const post = (body: string) =>
      fx.daemon.fetch('/mcp', {
        method: 'POST',
        headers: { ...mcpHeaders, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-03-26' },
        body,
      })
    for (const body of [
      '{',
      '[]',
      '42',
      '{"jsonrpc":"1.0","id":1,"method":"tools/list"}',
      '{"id":{},"method":7}',
    ]) {
      const res = await post(body)
      // The SDK's answers: 400 for what it cannot parse, 202 for an empty batch; never a server error.
      expect([400, 202]).toContain(res.status)
      await res.body?.cancel()
    }
    const bad = await a.client.callTool({ name: 'browser_list_tabs', arguments: { urlContains: 7 } })
    expect(textOf(bad)).toMatch(/^\[invalid_input\] urlContains must be string/)
    expect((await a.client.listTools()).tools.map((t) => t.name)).toEqual(['browser_list_tabs'])
    await a.close()
  })

  it('requires the Bearer token', async () => {
    const res = await fx.daemon.fetch('/mcp', {
      method: 'POST',
      headers: mcpHeaders,
      body: initialize(1),
      auth: false,
    })
    expect(res.status).toBe(401)
  })

  it('limits session creation to 5 per minute (one closed with DELETE does not count) with 429 and Retry-After', async () => {
    // Sessions were created above, some closed with DELETE: at most five more are allowed (the exact
    // count is test/integration/mcp/sessionLimits.test.ts's).
    const statuses: number[] = []
    let last: Response | undefined
    for (let i = 0; i < 6 && last?.status !== 429; i++) {
      last = await fx.daemon.fetch('/mcp', { method: 'POST', headers: mcpHeaders, body: initialize(i) })
      statuses.push(last.status)
      if (last.status !== 429) await last.body?.cancel()
    }
    expect(statuses.at(-1)).toBe(429)
    expect(statuses.slice(0, -1).every((s) => s === 200)).toBe(true)
    const seconds = Number(last?.headers.get('retry-after'))
    expect(seconds).toBeGreaterThan(0)
    expect(seconds).toBeLessThanOrEqual(60)
    const body = (await last?.json()) as { error: { code: string; message: string } }
    expect(body.error.code).toBe('rate_limited')
    expect(body.error.message).toMatch(
      /opened 5 sessions in the last minute, its limit .*: the next one frees in \d+ s$/,
    )
  })
})
