/**
 * Attack: an agent answers an approval that is not its own. With approvals in the client turned on for
 * one trusted client, another client (trusted or not) must not be able to decide that client's `ask`
 * calls: not by replaying the `requestState` the daemon gave the victim (2026-07-28), not by posting an
 * elicitation answer with the victim's call id into its own session (2025-11-25). The victim's call
 * keeps waiting for the user, who denies it in the side panel.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FakeExtension, READY } from '../helpers/fakeExtension'
import { connectMcp } from '../helpers/mcpClient'
import { STATELESS_REVISION } from '../helpers/mcpClientV2'
import { runCli } from '../integration/cli/runCli'
import { startFixture, type Fixture } from '../integration/toolcall/fixture'

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
const META = {
  'io.modelcontextprotocol/protocolVersion': STATELESS_REVISION,
  'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
}

describe('answers to another client approval', () => {
  let fx: Fixture
  let ext: FakeExtension
  const tokens: Record<string, string> = {}

  beforeAll(async () => {
    fx = await startFixture('node', {
      plugins: [{ name: 'bank', tools: [{ name: 'transfer' }] }],
      permissions: { bank: { permission: 'ask' } },
    })
    const cli = (args: string[]) => runCli([...args, '--port', String(fx.daemon.port)], fx.configDir)
    for (const name of ['victim', 'rogue']) {
      tokens[name] = (
        JSON.parse((await cli(['client', 'add', name, '--json'])).stdout) as { token: string }
      ).token
      expect((await cli(['client', 'approvals', name, 'on'])).code).toBe(0)
    }
    ext = await FakeExtension.connect(fx.daemon, { tabs: { bank: READY } })
  }, 60_000)
  afterAll(async () => {
    await ext?.close()
    await fx?.stop()
  })

  const call = (token: string, id: string, extra: Record<string, unknown> = {}) =>
    fetch(`${fx.daemon.url}/mcp`, {
      method: 'POST',
      headers: {
        ...HEADERS,
        authorization: `Bearer ${token}`,
        'mcp-protocol-version': STATELESS_REVISION,
        'mcp-method': 'tools/call',
        'mcp-name': 'bank_transfer',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name: 'bank_transfer', arguments: {}, _meta: META, ...extra },
      }),
    })

  it("refuses a replayed requestState from another client and leaves the victim's call to the user", async () => {
    const first = (await (await call(tokens.victim ?? '', 'v1')).json()) as {
      result: { resultType: string; requestState: string }
    }
    expect(first.result.resultType).toBe('input_required')
    const shown = await ext.waitFor('confirmation.request')
    expect(shown.params?.client).toBe('victim')
    const allow = { approval: { action: 'accept', content: { decision: 'allow_once' } } }
    const replay = await call(tokens.rogue ?? '', 'r1', {
      requestState: first.result.requestState,
      inputResponses: allow,
    })
    expect(replay.status).toBe(400)
    expect(await replay.json()).toMatchObject({ id: 'r1', error: { code: -32602 } })
    // Nothing ran; the user still decides.
    expect(ext.dispatches).toHaveLength(0)
    ext.approve(shown.params?.id as string, 'deny')
    const retry = (await (
      await call(tokens.victim ?? '', 'v2', { requestState: first.result.requestState, inputResponses: {} })
    ).json()) as { result: { resultType: string; isError: boolean; content: { text: string }[] } }
    expect(retry.result).toMatchObject({ resultType: 'complete', isError: true })
    expect(retry.result.content[0]?.text).toMatch(/^\[approval_denied\]/)
    expect(ext.dispatches).toHaveLength(0)
  })

  it('ignores an elicitation answer posted into a session for a call that session was never asked about', async () => {
    const pending = call(tokens.victim ?? '', 'v3')
    const shown = await ext.waitFor(
      'confirmation.request',
      (m) => m.params?.id !== undefined && m.params.client === 'victim',
    )
    const callId = shown.params?.id as string
    await pending
    const rogue = await connectMcp({ url: fx.daemon.url, secret: tokens.rogue ?? '' }, 'rogue')
    try {
      const forged = await fetch(`${fx.daemon.url}/mcp`, {
        method: 'POST',
        headers: {
          ...HEADERS,
          authorization: `Bearer ${tokens.rogue}`,
          'mcp-session-id': rogue.transport.sessionId ?? '',
          'mcp-protocol-version': '2025-11-25',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: `bridge-approval-${callId}`,
          result: { action: 'accept', content: { decision: 'allow_once' } },
        }),
      })
      expect(forged.status).toBe(202)
      await new Promise((resolve) => setTimeout(resolve, 300))
      expect(ext.dispatches).toHaveLength(0)
      ext.approve(callId, 'deny')
      await expect
        .poll(async () => {
          const entries = (await (await fx.daemon.fetch('/audit?tool=bank_transfer')).json()) as {
            client: string
            error?: { code: string }
          }[]
          return entries.map((entry) => `${entry.client} ${entry.error?.code ?? 'ok'}`)
        })
        .toEqual(['victim approval_denied', 'victim approval_denied'])
    } finally {
      await rogue.close()
    }
  })
})
