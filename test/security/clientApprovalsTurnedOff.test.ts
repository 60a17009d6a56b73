/**
 * Attack: a client keeps answering approvals after the user took that right away. With approvals in
 * the client on, an agent is asked about its `ask` calls (an `input_required` result in 2026-07-28, an
 * elicitation in 2025-11-25); the user runs `bridge client approvals <name> off`; the agent answers
 * "allow once" anyway, with the `requestState` it holds and with a posted elicitation result. Neither
 * answer may run the call: the questions the client holds are withdrawn, the answers are checked when
 * they arrive, and the calls wait for the user in the side panel, who denies them.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FakeExtension, READY } from '../helpers/fakeExtension'
import { textOf } from '../helpers/mcpClient'
import { STATELESS_REVISION } from '../helpers/mcpClientV2'
import { runCli } from '../integration/cli/runCli'
import { startFixture, type Fixture } from '../integration/toolcall/fixture'

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
const ALLOW = { action: 'accept', content: { decision: 'allow_once' } }

describe('answers after approvals in the client were turned off', () => {
  let fx: Fixture
  let ext: FakeExtension
  let token = ''
  const cli = (args: string[]) => runCli([...args, '--port', String(fx.daemon.port)], fx.configDir)

  beforeAll(async () => {
    fx = await startFixture(
      'node',
      {
        plugins: [
          {
            name: 'bank',
            tools: [
              { name: 'transfer', inputSchema: { type: 'object', properties: { to: { type: 'string' } } } },
            ],
          },
        ],
        permissions: { bank: { permission: 'ask' } },
      },
      // The approvals wait for the person (as by default), not the short test limit: the CLI runs meanwhile.
      { BRIDGE_APPROVAL_TIMEOUT_MS: '300000' },
    )
    token = (JSON.parse((await cli(['client', 'add', 'agent', '--json'])).stdout) as { token: string }).token
    expect((await cli(['client', 'approvals', 'agent', 'on'])).code).toBe(0)
    ext = await FakeExtension.connect(fx.daemon, { tabs: { bank: READY } })
  }, 60_000)
  afterAll(async () => {
    await ext?.close()
    await fx?.stop()
  })

  const post = (body: unknown, headers: Record<string, string>) =>
    fetch(`${fx.daemon.url}/mcp`, {
      method: 'POST',
      headers: { ...HEADERS, authorization: `Bearer ${token}`, ...headers },
      body: JSON.stringify(body),
    })

  const statelessCall = (id: string, extra: Record<string, unknown> = {}) =>
    post(
      {
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: {
          name: 'bank_transfer',
          arguments: { to: id },
          _meta: {
            'io.modelcontextprotocol/protocolVersion': STATELESS_REVISION,
            'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
          },
          ...extra,
        },
      },
      { 'mcp-protocol-version': STATELESS_REVISION, 'mcp-method': 'tools/call', 'mcp-name': 'bank_transfer' },
    )

  it('takes neither revision’s answer once the setting is off, and leaves both calls to the side panel', async () => {
    // 2026-07-28: the call comes back as input_required; the agent keeps its requestState.
    const first = (await (await statelessCall('s1')).json()) as {
      result: { resultType: string; requestState: string }
    }
    expect(first.result.resultType).toBe('input_required')
    const statelessShown = await ext.waitFor(
      'confirmation.request',
      (m) => (m.params?.params as { to?: string })?.to === 's1',
    )

    // 2025-11-25: the real SDK v1 client is asked by elicitation and holds the question open.
    const transport = new StreamableHTTPClientTransport(new URL(`${fx.daemon.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    })
    const client = new Client({ name: 'agent', version: '1.0.0' }, { capabilities: { elicitation: {} } })
    let asked!: () => void
    const wasAsked = new Promise<void>((resolve) => (asked = resolve))
    let withdrawn!: () => void
    const wasWithdrawn = new Promise<void>((resolve) => (withdrawn = resolve))
    client.setRequestHandler(ElicitRequestSchema, (_request, extra) => {
      asked()
      extra.signal.addEventListener('abort', () => withdrawn())
      return new Promise(() => undefined)
    })
    await client.connect(transport)
    try {
      const pending = client.callTool({ name: 'bank_transfer', arguments: { to: 'v1' } })
      const sessionShown = await ext.waitFor(
        'confirmation.request',
        (m) => (m.params?.params as { to?: string })?.to === 'v1',
      )
      await wasAsked

      // The user takes the right away: the question the session holds is withdrawn.
      expect((await cli(['client', 'approvals', 'agent', 'off'])).code).toBe(0)
      await wasWithdrawn

      // The agent answers anyway, in both revisions (the retry first: its answer comes only with the result).
      const retry = statelessCall('s2', {
        requestState: first.result.requestState,
        inputResponses: { approval: ALLOW },
      })
      const sessionCallId = sessionShown.params?.id as string
      const forged = await post(
        { jsonrpc: '2.0', id: `bridge-approval-${sessionCallId}`, result: ALLOW },
        { 'mcp-session-id': transport.sessionId ?? '', 'mcp-protocol-version': '2025-11-25' },
      )
      expect(forged.status).toBe(202)

      // Neither answer decided: the side panel still can, and the user denies both.
      ext.approve(statelessShown.params?.id as string, 'deny')
      ext.approve(sessionCallId, 'deny')
      const retried = (await (await retry).json()) as {
        result: { resultType: string; isError: boolean; content: { text: string }[] }
      }
      expect(retried.result).toMatchObject({ resultType: 'complete', isError: true })
      expect(retried.result.content[0]?.text).toMatch(/^\[approval_denied\]/)
      expect(textOf(await pending)).toMatch(/^\[approval_denied\]/)
      expect(ext.dispatches).toHaveLength(0)
    } finally {
      await client.close()
    }
  })
})
