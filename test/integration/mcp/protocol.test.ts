/**
 * The daemon's own MCP server, spoken to by hand over HTTP on both engines: what the SDK client never
 * exercises (version negotiation, refusals, one event stream per session, cancellation by
 * notification, logging levels) and what it does, as raw bytes.
 */
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MCP_PROTOCOL_VERSIONS } from '../../../src/protocol'
import { ENGINES } from '../../helpers/daemon'
import { FakeExtension, READY } from '../../helpers/fakeExtension'
import { withoutPageMarkers } from '../../helpers/mcpClient'
import { startFixture, type Fixture } from '../toolcall/fixture'

const JSON_TYPES = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }

it('speaks every protocol revision the MCP SDK knows', () => {
  expect([...MCP_PROTOCOL_VERSIONS].sort()).toEqual([...SUPPORTED_PROTOCOL_VERSIONS].sort())
})

describe.each(ENGINES)('/mcp, by hand (%s engine)', (engine) => {
  let fx: Fixture
  let ext: FakeExtension

  beforeAll(async () => {
    fx = await startFixture(engine, {
      plugins: [{ name: 'notes', tools: [{ name: 'list_notes' }] }],
      permissions: { notes: { permission: 'off' }, browser: { tools: { browser_list_tabs: 'auto' } } },
    })
    ext = await FakeExtension.connect(fx.daemon, { tabs: { notes: READY } })
  })
  afterAll(async () => {
    await ext?.close()
    await fx?.stop()
  })

  const post = (body: unknown, headers: Record<string, string> = {}) =>
    fx.daemon.fetch('/mcp', {
      method: 'POST',
      headers: { ...JSON_TYPES, ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    })

  async function open(protocolVersion = '2025-06-18'): Promise<{ id: string; version: string }> {
    const res = await post({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion, capabilities: {}, clientInfo: { name: 'by-hand', version: '1' } },
    })
    expect(res.status).toBe(200)
    const body = (await res.json()) as { result: { protocolVersion: string; serverInfo: { name: string } } }
    expect(body.result.serverInfo.name).toBe('bridge')
    return { id: res.headers.get('mcp-session-id') ?? '', version: body.result.protocolVersion }
  }

  it('agrees on the revision the client asks for when it knows it, else offers the newest', async () => {
    expect((await open('2025-03-26')).version).toBe('2025-03-26')
    expect((await open('1999-01-01')).version).toBe(MCP_PROTOCOL_VERSIONS[0])
  })

  it('answers ping, tools/list and an unknown method, and refuses what is not MCP over HTTP', async () => {
    const { id } = await open()
    const session = { 'mcp-session-id': id }
    expect(await (await post({ jsonrpc: '2.0', id: 1, method: 'ping' }, session)).json()).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: {},
    })
    const listed = (await (
      await post({ jsonrpc: '2.0', id: 'l', method: 'tools/list' }, session)
    ).json()) as {
      id: string
      result: { tools: { name: string }[] }
    }
    expect(listed.id).toBe('l')
    expect(listed.result.tools.map((t) => t.name)).toEqual(['browser_list_tabs'])
    expect(
      await (await post({ jsonrpc: '2.0', id: 2, method: 'resources/list' }, session)).json(),
    ).toMatchObject({
      id: 2,
      error: { code: -32601 },
    })
    expect(
      (await post({ jsonrpc: '2.0', id: 3, method: 'ping' }, { ...session, accept: 'application/json' }))
        .status,
    ).toBe(406)
    expect(
      (await post({ jsonrpc: '2.0', id: 4, method: 'ping' }, { ...session, 'content-type': 'text/plain' }))
        .status,
    ).toBe(415)
    const batch = await post([{ jsonrpc: '2.0', id: 5, method: 'ping' }], session)
    expect(batch.status).toBe(400)
    expect(await batch.json()).toMatchObject({ error: { code: -32600 } })
    const oldHeader = await post(
      { jsonrpc: '2.0', id: 6, method: 'ping' },
      { ...session, 'mcp-protocol-version': '2023-01-01' },
    )
    expect(oldHeader.status).toBe(400)
    await oldHeader.body?.cancel()
    expect((await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, session)).status).toBe(202)
    const again = await post(
      {
        jsonrpc: '2.0',
        id: 7,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
      },
      session,
    )
    expect(await again.json()).toMatchObject({ id: 7, error: { code: -32600 } })
    const badParams = await post(
      { jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 7 } },
      session,
    )
    expect(await badParams.json()).toMatchObject({ id: 8, error: { code: -32602 } })
  })

  it('keeps one event stream per session and sends tools/list_changed on it, and no plugin log of no call', async () => {
    const { id } = await open()
    const stream = await fx.daemon.fetch('/mcp', {
      headers: { accept: 'text/event-stream', 'mcp-session-id': id },
    })
    expect(stream.status).toBe(200)
    expect(stream.headers.get('content-type')).toBe('text/event-stream')
    const second = await fx.daemon.fetch('/mcp', {
      headers: { accept: 'text/event-stream', 'mcp-session-id': id },
    })
    expect(second.status).toBe(409)
    await second.body?.cancel()
    const setLevel = await post(
      { jsonrpc: '2.0', id: 1, method: 'logging/setLevel', params: { level: 'warning' } },
      { 'mcp-session-id': id },
    )
    expect(await setLevel.json()).toEqual({ jsonrpc: '2.0', id: 1, result: {} })
    // Entries of no call belong to no client: the daemon's log keeps them (test/security/callNotifications).
    ext.notify('plugin.log', {
      entries: [
        { plugin: 'notes', level: 'info', message: 'quiet', ts: Date.now() },
        { plugin: 'notes', level: 'error', message: 'loud', ts: Date.now() },
      ],
    })
    const reload = await fx.daemon.fetch('/reload', { method: 'POST' })
    expect(reload.status).toBe(200)
    const reader = stream.body!.getReader()
    let text = ''
    while (!text.includes('tools/list_changed')) text += new TextDecoder().decode((await reader.read()).value)
    await reader.cancel()
    expect(text).not.toContain('notifications/message')
    expect(text).not.toContain('loud')
    expect(text).not.toContain('quiet')
  })

  it('ends a call as cancelled on notifications/cancelled, streams progress then the answer when asked, and ends on DELETE', async () => {
    const { id } = await open()
    const session = { 'mcp-session-id': id }
    const call = post(
      {
        jsonrpc: '2.0',
        id: 'c1',
        method: 'tools/call',
        params: { name: 'browser_list_tabs', arguments: {} },
      },
      session,
    )
    await ext.nextDispatch()
    expect(
      (
        await post(
          { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'c1' } },
          session,
        )
      ).status,
    ).toBe(202)
    const cancelled = (await (await call).json()) as {
      result: { isError: boolean; content: { text: string }[] }
    }
    expect(cancelled.result.isError).toBe(true)
    expect(cancelled.result.content[0]?.text).toMatch(/^\[cancelled\]/)

    const streamed = post(
      {
        jsonrpc: '2.0',
        id: 'c2',
        method: 'tools/call',
        params: { name: 'browser_list_tabs', arguments: {}, _meta: { progressToken: 'p' } },
      },
      session,
    )
    const dispatch = await ext.nextDispatch()
    dispatch.progress(1, 2, 'half')
    await new Promise((resolve) => setTimeout(resolve, 50))
    dispatch.succeed({ tabs: [] })
    const res = await streamed
    expect(res.headers.get('content-type')).toBe('text/event-stream')
    const events = (await res.text())
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map(
        (line) =>
          JSON.parse(line.slice(6)) as {
            method?: string
            id?: string
            result?: { content: { text: string }[] }
          },
      )
    expect(events.map((e) => e.method ?? e.id)).toEqual(['notifications/progress', 'c2'])
    expect(withoutPageMarkers(events[1]?.result?.content[0]?.text ?? '')).toBe('{"tabs":[]}')

    // Initialize is limited to 5 a minute per client: this session is also the one DELETE ends.
    const gone = await fx.daemon.fetch('/mcp', { method: 'DELETE', headers: session })
    expect(gone.status).toBe(200)
    const after = await post({ jsonrpc: '2.0', id: 1, method: 'ping' }, session)
    expect(after.status).toBe(404)
    expect(await after.json()).toMatchObject({ error: { code: -32001 } })
  })
})
