/**
 * Approvals in the client, for a client the user trusts to show them (`bridge client approvals <name>
 * on`): an `ask` call of a 2026-07-28 client that can show a form comes back as `input_required`; the
 * SDK v2 client asks its user (elicitation handler) and retries; the side panel shows the same request;
 * the first answer decides, once. A client without the setting, or a request without the capability,
 * gets today's side-panel approval only.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FakeExtension, READY } from '../../helpers/fakeExtension'
import { textOf } from '../../helpers/mcpClient'
import { connectMcpV2, STATELESS_REVISION } from '../../helpers/mcpClientV2'
import { runCli } from '../cli/runCli'
import { auditEntries, startFixture, type Fixture } from '../toolcall/fixture'

describe('approvals in the MCP client', () => {
  let fx: Fixture
  let ext: FakeExtension
  const tokens: Record<string, string> = {}
  const cli = (args: string[]) => runCli([...args, '--port', String(fx.daemon.port)], fx.configDir)

  beforeAll(async () => {
    fx = await startFixture('node', {
      plugins: [
        {
          name: 'notes',
          tools: [
            {
              name: 'delete_note',
              inputSchema: { type: 'object', properties: { id: { type: 'integer' } } },
              annotations: { readOnlyHint: false, destructiveHint: true },
            },
          ],
        },
      ],
      permissions: { notes: { permission: 'ask' } },
    })
    for (const name of ['trusted', 'untrusted']) {
      const added = await cli(['client', 'add', name, '--json'])
      tokens[name] = (JSON.parse(added.stdout) as { token: string }).token
    }
    const on = await cli(['client', 'approvals', 'trusted', 'on'])
    expect(on.code, on.stderr).toBe(0)
    expect(on.stdout).toContain('Turn this on only for a client you trust')
    ext = await FakeExtension.connect(fx.daemon, { tabs: { notes: READY } })
  }, 60_000)
  afterAll(async () => {
    await ext?.close()
    await fx?.stop()
  })

  const elicitable = { elicitation: { form: {} } }

  it('asks a trusted client that can show a form, and runs the call on its answer', async () => {
    const asked: string[] = []
    const mcp = await connectMcpV2(fx.daemon, tokens.trusted ?? '', {
      capabilities: elicitable,
      onElicit: (params) => {
        asked.push(params.message)
        return Promise.resolve({ action: 'accept', content: { decision: 'allow_once' } })
      },
    })
    try {
      const pending = mcp.client.callTool({ name: 'notes_delete_note', arguments: { id: 7 } })
      const shown = await ext.waitFor('confirmation.request')
      expect(shown.params).toMatchObject({ client: 'trusted', tool: 'notes_delete_note', params: { id: 7 } })
      // The side panel is told what the tool declares; the call still waited for a decision.
      expect(shown.params).toMatchObject({
        title: 'delete_note',
        annotations: { readOnlyHint: false, destructiveHint: true },
      })
      const dispatch = await ext.nextDispatch()
      expect(dispatch.params).toMatchObject({ tool: 'delete_note', client: 'trusted' })
      dispatch.succeed({ deleted: 7 })
      expect(textOf(await pending)).toBe('{"deleted":7}')
      expect(asked).toHaveLength(1)
      expect(asked[0]).toContain(
        'bridge: a destructive tool (it declares that it may delete or overwrite data): allow "trusted" to run notes_delete_note (plugin notes)',
      )
      expect(asked[0]).toContain('{"id":7}')
      // The side panel is told the request was answered elsewhere.
      const cancel = await ext.waitFor('confirmation.cancel', (m) => m.params?.id === shown.params?.id)
      expect(cancel.params?.reason).toBe('answered in the MCP client')
      // The retry carried the client's answer, the requestState the daemon signed, and no session.
      const calls = mcp.sent.filter((request) => request.method === 'tools/call')
      expect(calls).toHaveLength(2)
    } finally {
      await mcp.close()
    }
  })

  it('denies when the user declines in the client, and never dispatches', async () => {
    const mcp = await connectMcpV2(fx.daemon, tokens.trusted ?? '', {
      capabilities: elicitable,
      onElicit: () => Promise.resolve({ action: 'decline' }),
    })
    try {
      const before = ext.dispatches.length
      const result = await mcp.client.callTool({ name: 'notes_delete_note', arguments: { id: 8 } })
      expect(result.isError).toBe(true)
      expect(textOf(result)).toMatch(/^\[approval_denied\]/)
      expect(ext.dispatches.length).toBe(before)
      const [entry] = (await auditEntries(fx.daemon)).filter((e) => e.tool === 'notes_delete_note')
      expect(entry).toMatchObject({ client: 'trusted', success: false, error: { code: 'approval_denied' } })
    } finally {
      await mcp.close()
    }
  })

  it('lets the side panel decide first; the answer given in the client later changes nothing', async () => {
    let release: (decision: string) => void = () => undefined
    const mcp = await connectMcpV2(fx.daemon, tokens.trusted ?? '', {
      capabilities: elicitable,
      onElicit: () =>
        new Promise((resolve) => {
          release = (decision) => resolve({ action: 'accept', content: { decision } })
        }),
    })
    try {
      const pending = mcp.client.callTool({ name: 'notes_delete_note', arguments: { id: 9 } })
      const shown = await ext.waitFor(
        'confirmation.request',
        (m) => (m.params?.params as { id?: number })?.id === 9,
      )
      ext.approve(shown.params?.id as string, 'allow_once')
      const dispatch = await ext.nextDispatch()
      dispatch.succeed({ deleted: 9 })
      // Too late: the side panel decided.
      release('deny')
      expect(textOf(await pending)).toBe('{"deleted":9}')
    } finally {
      await mcp.close()
    }
  })

  it('asks only in the side panel for a client without the setting, or a request that cannot show a form', async () => {
    for (const [token, capabilities] of [
      [tokens.untrusted, elicitable],
      [tokens.trusted, {}],
    ] as const) {
      let asked = 0
      const mcp = await connectMcpV2(fx.daemon, token ?? '', {
        capabilities,
        // The SDK takes an elicitation handler only from a client that declares the capability.
        ...('elicitation' in capabilities
          ? {
              onElicit: () => {
                asked++
                return Promise.resolve({ action: 'accept' as const, content: { decision: 'allow_once' } })
              },
            }
          : {}),
      })
      try {
        const pending = mcp.client.callTool({ name: 'notes_delete_note', arguments: { id: 10 } })
        const shown = await ext.waitFor(
          'confirmation.request',
          (m) => (m.params?.params as { id?: number })?.id === 10,
        )
        ext.approve(shown.params?.id as string, 'deny')
        expect(textOf(await pending)).toMatch(/^\[approval_denied\]/)
        expect(asked).toBe(0)
        ext.received.splice(0, ext.received.length)
      } finally {
        await mcp.close()
      }
    }
  })

  it('refuses a requestState it did not issue, or one issued to another client', async () => {
    const post = (token: string, requestState: string) =>
      fetch(`${fx.daemon.url}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${token}`,
          'mcp-protocol-version': STATELESS_REVISION,
          'mcp-method': 'tools/call',
          'mcp-name': 'notes_delete_note',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 'r1',
          method: 'tools/call',
          params: {
            name: 'notes_delete_note',
            arguments: {},
            requestState,
            inputResponses: { approval: { action: 'accept', content: { decision: 'allow_once' } } },
            _meta: {
              'io.modelcontextprotocol/protocolVersion': STATELESS_REVISION,
              'io.modelcontextprotocol/clientCapabilities': elicitable,
            },
          },
        }),
      })
    const forged = await post(tokens.trusted ?? '', 'eyJjYWxsIjoieCJ9.AAAA')
    expect(forged.status).toBe(400)
    expect(await forged.json()).toMatchObject({ id: 'r1', error: { code: -32602 } })
  })
})

describe('approvals in a 2025-11-25 MCP client (elicitation)', () => {
  let fx: Fixture
  let ext: FakeExtension
  let token = ''

  beforeAll(async () => {
    fx = await startFixture('uws', {
      plugins: [
        {
          name: 'notes',
          tools: [
            { name: 'delete_note', inputSchema: { type: 'object', properties: { id: { type: 'integer' } } } },
          ],
        },
      ],
      permissions: { notes: { permission: 'ask' } },
    })
    const cli = (args: string[]) => runCli([...args, '--port', String(fx.daemon.port)], fx.configDir)
    token = (
      JSON.parse((await cli(['client', 'add', 'session-trusted', '--json'])).stdout) as { token: string }
    ).token
    expect((await cli(['client', 'approvals', 'session-trusted', 'on'])).code).toBe(0)
    ext = await FakeExtension.connect(fx.daemon, { tabs: { notes: READY } })
  }, 60_000)
  afterAll(async () => {
    await ext?.close()
    await fx?.stop()
  })

  async function sessionClient(
    answer: () => Promise<{ action: 'accept' | 'decline' | 'cancel'; content?: Record<string, string> }>,
  ) {
    const transport = new StreamableHTTPClientTransport(new URL(`${fx.daemon.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    })
    const client = new Client({ name: 'v1-trusted', version: '1.0.0' }, { capabilities: { elicitation: {} } })
    const asked: string[] = []
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params.message)
      return answer()
    })
    await client.connect(transport)
    return { client, asked, close: () => client.close() }
  }

  it('asks through elicitation on the call stream and runs the call on the answer', async () => {
    const v1 = await sessionClient(() =>
      Promise.resolve({ action: 'accept', content: { decision: 'allow_once' } }),
    )
    try {
      const pending = v1.client.callTool({ name: 'notes_delete_note', arguments: { id: 1 } })
      const shown = await ext.waitFor('confirmation.request')
      expect(shown.params).toMatchObject({ client: 'session-trusted', params: { id: 1 } })
      const dispatch = await ext.nextDispatch()
      dispatch.succeed({ deleted: 1 })
      expect(textOf(await pending)).toBe('{"deleted":1}')
      expect(v1.asked[0]).toContain('allow "session-trusted" to run notes_delete_note')
    } finally {
      await v1.close()
    }
  })

  it('takes the question back from the client when the side panel decides first', async () => {
    const v1 = await sessionClient(() => new Promise(() => undefined))
    try {
      const pending = v1.client.callTool({ name: 'notes_delete_note', arguments: { id: 2 } })
      const shown = await ext.waitFor(
        'confirmation.request',
        (m) => (m.params?.params as { id?: number })?.id === 2,
      )
      for (let i = 0; i < 100 && v1.asked.length === 0; i++)
        await new Promise((resolve) => setTimeout(resolve, 20))
      expect(v1.asked).toHaveLength(1)
      ext.approve(shown.params?.id as string, 'deny')
      expect(textOf(await pending)).toMatch(/^\[approval_denied\]/)
    } finally {
      await v1.close()
    }
  })
})
