/**
 * The stateless revision (2026-07-28) on /mcp beside 2025-11-25 sessions, on both engines: the MCP
 * SDK v2 client pinned to 2026-07-28 and the SDK v1 client with its session, each with a token of its
 * own, on one daemon; the fake extension stands in for the browser. Identity is the client's, by its
 * token: calls, approvals and audit entries name it on every request, with no session to carry it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { markPageContent } from '../../../src/protocol/pageContent'
import { ENGINES } from '../../helpers/daemon'
import { FakeExtension, READY } from '../../helpers/fakeExtension'
import { connectMcp, textOf } from '../../helpers/mcpClient'
import { connectMcpV2, STATELESS_REVISION } from '../../helpers/mcpClientV2'
import { runCli } from '../cli/runCli'
import { auditEntries, startFixture, type Fixture } from '../toolcall/fixture'

const JSON_TYPES = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }

describe.each(ENGINES)('/mcp without a session, 2026-07-28 (%s engine)', (engine) => {
  let fx: Fixture
  let ext: FakeExtension
  const tokens: Record<string, string> = {}

  beforeAll(async () => {
    fx = await startFixture(engine, {
      plugins: [{ name: 'notes', tools: [{ name: 'list_notes' }, { name: 'delete_note' }] }],
      permissions: { notes: { permission: 'auto', tools: { delete_note: 'ask' } } },
    })
    for (const name of ['alpha', 'beta']) {
      const added = await runCli(
        ['client', 'add', name, '--json', '--port', String(fx.daemon.port)],
        fx.configDir,
      )
      expect(added.code, added.stderr).toBe(0)
      tokens[name] = (JSON.parse(added.stdout) as { token: string }).token
    }
    ext = await FakeExtension.connect(fx.daemon, { tabs: { notes: READY } })
  }, 60_000)
  afterAll(async () => {
    await ext?.close()
    await fx?.stop()
  })

  /** A raw stateless POST as the revision defines it, with `beta`'s token. */
  const post = (method: string, params: Record<string, unknown>, id: number | string = 1, headers = {}) =>
    fetch(`${fx.daemon.url}/mcp`, {
      method: 'POST',
      headers: {
        ...JSON_TYPES,
        authorization: `Bearer ${tokens.beta}`,
        'mcp-protocol-version': STATELESS_REVISION,
        'mcp-method': method,
        ...(typeof params.name === 'string' ? { 'mcp-name': params.name } : {}),
        ...headers,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
    })
  const meta = (extra: Record<string, unknown> = {}) => ({
    'io.modelcontextprotocol/protocolVersion': STATELESS_REVISION,
    'io.modelcontextprotocol/clientCapabilities': {},
    ...extra,
  })

  it('serves the SDK v2 client with no session: discover, tools/list with titles and annotations, calls as its token names', async () => {
    const mcp = await connectMcpV2(fx.daemon, tokens.beta ?? '')
    try {
      expect(mcp.client.getServerVersion()).toMatchObject({ name: 'bridge' })
      const { tools } = await mcp.client.listTools()
      expect(tools.find((tool) => tool.name === 'notes_list_notes')).toMatchObject({
        title: 'list_notes',
        annotations: { title: 'list_notes' },
      })
      for (const round of [1, 2]) {
        const pending = mcp.client.callTool({ name: 'notes_list_notes', arguments: {} })
        const dispatch = await ext.nextDispatch()
        // Every request is a new HTTP request: the client is still `beta`, by its token.
        expect(dispatch.params).toMatchObject({ plugin: 'notes', tool: 'list_notes', client: 'beta' })
        dispatch.succeed({ round })
        expect(textOf(await pending)).toBe(JSON.stringify({ round }))
      }
      expect(mcp.sent.map((request) => request.method)).toEqual([
        'server/discover',
        'tools/list',
        'tools/call',
        'tools/call',
      ])
      for (const request of mcp.sent) {
        expect(request.headers['mcp-session-id']).toBeUndefined()
        expect(request.headers['mcp-protocol-version']).toBe(STATELESS_REVISION)
      }
      const entries = (await auditEntries(fx.daemon)).filter((entry) => entry.tool === 'notes_list_notes')
      expect(entries.slice(0, 2).map((entry) => entry.client)).toEqual(['beta', 'beta'])
    } finally {
      await mcp.close()
    }
  })

  it('keeps a 2025-11-25 session client and a 2026-07-28 client apart on one daemon, each approved as itself', async () => {
    const v1 = await connectMcp({ url: fx.daemon.url, secret: tokens.alpha ?? '' }, 'alpha-agent')
    const v2 = await connectMcpV2(fx.daemon, tokens.beta ?? '')
    try {
      const fromV1 = v1.client.callTool({ name: 'notes_delete_note', arguments: {} })
      const fromV2 = v2.client.callTool({ name: 'notes_delete_note', arguments: {} })
      const asks = [
        await ext.waitFor('confirmation.request'),
        await ext.waitFor('confirmation.request', (m) => m.params?.client === 'beta'),
      ]
      const byClient = new Map(asks.map((ask) => [ask.params?.client as string, ask.params?.id as string]))
      expect([...byClient.keys()].sort()).toEqual(['alpha', 'beta'])
      ext.approve(byClient.get('beta') ?? '', 'deny')
      ext.approve(byClient.get('alpha') ?? '', 'allow_once')
      const dispatch = await ext.nextDispatch()
      expect(dispatch.params).toMatchObject({ tool: 'delete_note', client: 'alpha' })
      dispatch.succeed({ deleted: true })
      expect(textOf(await fromV1)).toBe('{"deleted":true}')
      const denied = await fromV2
      expect(denied.isError).toBe(true)
      expect(textOf(denied)).toMatch(/^\[approval_denied\]/)
      expect(v1.transport.sessionId).toBeTruthy()
    } finally {
      await v1.close()
      await v2.close()
    }
  })

  it('streams progress of a call that asked for it, then the answer', async () => {
    const mcp = await connectMcpV2(fx.daemon, tokens.beta ?? '')
    try {
      const progress: unknown[] = []
      const pending = mcp.client.callTool(
        { name: 'notes_list_notes', arguments: {} },
        { onprogress: (update) => void progress.push(update) },
      )
      const dispatch = await ext.nextDispatch()
      dispatch.progress(1, 2, 'half way')
      await new Promise((resolve) => setTimeout(resolve, 200))
      dispatch.succeed({ done: true })
      expect(textOf(await pending)).toBe('{"done":true}')
      expect(progress).toEqual([{ progress: 1, total: 2, message: 'half way' }])
    } finally {
      await mcp.close()
    }
  })

  it('tells a subscriptions/listen stream when the tool list changes, and only what it asked for', async () => {
    const mcp = await connectMcpV2(fx.daemon, tokens.beta ?? '')
    try {
      let changed = 0
      mcp.client.setNotificationHandler('notifications/tools/list_changed', () => void changed++)
      const subscription = await mcp.client.listen({ toolsListChanged: true, promptsListChanged: true })
      expect(subscription.honoredFilter).toEqual({ toolsListChanged: true })
      const answer = await ext.request('config.setToolPermission', {
        plugin: 'notes',
        tool: 'list_notes',
        permission: 'ask',
      })
      expect(answer.result).toEqual({ ok: true })
      for (let i = 0; i < 100 && changed === 0; i++) await new Promise((resolve) => setTimeout(resolve, 50))
      expect(changed).toBe(1)
      await subscription.close()
      expect(await subscription.closed).toBe('local')
    } finally {
      await ext.request('config.setToolPermission', {
        plugin: 'notes',
        tool: 'list_notes',
        permission: 'auto',
      })
      await mcp.close()
    }
  })

  it('sends a plugin log message on the call stream only when the request set a log level', async () => {
    const logged = post('tools/call', {
      name: 'notes_list_notes',
      arguments: {},
      _meta: meta({ 'io.modelcontextprotocol/logLevel': 'info' }),
    })
    const dispatch = await ext.nextDispatch()
    ext.notify('plugin.log', {
      entries: [
        {
          plugin: 'notes',
          dispatchId: dispatch.params.dispatchId,
          level: 'debug',
          message: 'too quiet',
          ts: Date.now(),
        },
        {
          plugin: 'notes',
          dispatchId: dispatch.params.dispatchId,
          level: 'warning',
          message: 'heard',
          ts: Date.now(),
        },
      ],
    })
    await new Promise((resolve) => setTimeout(resolve, 300))
    dispatch.succeed({ ok: 1 })
    const response = await logged
    expect(response.headers.get('content-type')).toBe('text/event-stream')
    const text = await response.text()
    expect(text).toContain('"method":"notifications/message"')
    expect(text).toContain('heard')
    expect(text).not.toContain('too quiet')
    expect(text).toContain('"resultType":"complete"')

    const quiet = post('tools/call', { name: 'notes_list_notes', arguments: {}, _meta: meta() }, 2)
    const second = await ext.nextDispatch()
    ext.notify('plugin.log', {
      entries: [
        {
          plugin: 'notes',
          dispatchId: second.params.dispatchId,
          level: 'error',
          message: 'unheard',
          ts: Date.now(),
        },
      ],
    })
    await new Promise((resolve) => setTimeout(resolve, 300))
    second.succeed({ ok: 2 })
    const plain = await quiet
    expect(plain.headers.get('content-type')).toMatch(/^application\/json/)
    expect(await plain.text()).not.toContain('unheard')
  })

  it('refuses what the revision refuses, each error carrying the request id', async () => {
    const missing = await post('tools/list', {}, 'm1')
    expect(missing.status).toBe(400)
    expect(await missing.json()).toMatchObject({ id: 'm1', error: { code: -32602 } })
    const mismatch = await post(
      'tools/call',
      { name: 'notes_list_notes', arguments: {}, _meta: meta() },
      'm2',
      {
        'mcp-name': 'notes_delete_note',
      },
    )
    expect(mismatch.status).toBe(400)
    expect(await mismatch.json()).toMatchObject({ id: 'm2', error: { code: -32020 } })
    const padded = post('tools/call', { name: 'notes_list_notes', arguments: {}, _meta: meta() }, 'm3', {
      'mcp-name': '  notes_list_notes  ',
    })
    ;(await ext.nextDispatch()).succeed('trimmed')
    expect(await (await padded).json()).toMatchObject({
      id: 'm3',
      // A plugin's result is page text: marked (src/protocol/pageContent.ts).
      result: { content: [{ text: markPageContent('trimmed') }] },
    })
    const badInput = await post(
      'tools/call',
      { name: 'notes_list_notes', arguments: {}, inputResponses: { approval: 12345 }, _meta: meta() },
      'm6',
    )
    expect(badInput.status).toBe(400)
    expect(await badInput.json()).toMatchObject({ id: 'm6', error: { code: -32602 } })
    const removed = await post('initialize', { _meta: meta() }, 'm4')
    expect(removed.status).toBe(404)
    expect(await removed.json()).toMatchObject({ id: 'm4', error: { code: -32601 } })
    const old = await post(
      'tools/list',
      { _meta: meta({ 'io.modelcontextprotocol/protocolVersion': '2099-01-01' }) },
      'm5',
      {
        'mcp-protocol-version': '2099-01-01',
      },
    )
    expect(old.status).toBe(400)
    expect(await old.json()).toMatchObject({
      id: 'm5',
      error: {
        code: -32022,
        data: {
          requested: '2099-01-01',
          supported: expect.arrayContaining([STATELESS_REVISION, '2025-11-25']),
        },
      },
    })
  })

  it('ends a running call as cancelled on notifications/cancelled from the same client', async () => {
    const running = post('tools/call', { name: 'notes_list_notes', arguments: {}, _meta: meta() }, 'c1')
    await ext.nextDispatch()
    const notification = await fetch(`${fx.daemon.url}/mcp`, {
      method: 'POST',
      headers: {
        ...JSON_TYPES,
        authorization: `Bearer ${tokens.beta}`,
        'mcp-protocol-version': STATELESS_REVISION,
        'mcp-method': 'notifications/cancelled',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: 'c1', _meta: meta() },
      }),
    })
    expect(notification.status).toBe(202)
    expect(textOf((await (await running).json()).result)).toMatch(/^\[cancelled\]/)
  })
})
