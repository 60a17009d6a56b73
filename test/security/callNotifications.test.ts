// Two agents with disjoint scopes share one daemon, and a third is scoped to nothing: what a call says
// back while it runs (its plugin's log entries, its progress) reaches only the client that made it, on
// both MCP revisions, with the real MCP SDK clients (v1 in a 2025-11-25 session, v2 on stateless
// 2026-07-28 requests). The extension sends, in one batch, each call's own entries, an entry of no
// call, and an entry one plugin claims for the other plugin's call: neither agent reads a byte of the
// other's, the agent scoped to nothing reads none, and tools/list_changed carries no detail at all.
// A fourth agent answers approvals itself (in-client approvals on): while its `ask` call waits, the
// question (elicitation, or input_required with its requestState) and the "waiting for approval"
// notices reach it alone, and an agent of a disjoint scope working meanwhile receives none of them.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FakeExtension, READY, type Dispatch } from '../helpers/fakeExtension'
import { connectMcp, textOf, type McpConnection } from '../helpers/mcpClient'
import { connectMcpV2, STATELESS_REVISION } from '../helpers/mcpClientV2'
import { runCli } from '../integration/cli/runCli'
import { startFixture, type Fixture } from '../integration/toolcall/fixture'

const WAIT_MS = Number(process.env.BRIDGE_TEST_WAIT_MS ?? 20_000)

const SCOPES: Record<string, string[]> = {
  alpha: ['--plugins', 'notes', '--builtins', 'none', '--sites', 'none'],
  beta: ['--plugins', 'mail', '--builtins', 'none', '--sites', 'none'],
  nobody: ['--plugins', 'none', '--builtins', 'none', '--sites', 'none'],
  // Asks: its calls wait for approval, and it answers approvals itself (in-client approvals on).
  gamma: ['--plugins', 'vault', '--builtins', 'none', '--sites', 'none'],
}
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }

/** One batch: stray entries first, so a client that got them would read them before its own. */
function sendLogs(ext: FakeExtension, notes: Dispatch, mail: Dispatch, tag: string): void {
  const ts = Date.now()
  ext.notify('plugin.log', {
    entries: [
      { plugin: 'notes', level: 'error', message: `${tag} notes outside any call`, ts },
      // The mail plugin names the notes call: not mail's call, so it reaches nobody.
      {
        plugin: 'mail',
        dispatchId: notes.params.dispatchId,
        level: 'error',
        message: `${tag} mail forged`,
        ts,
      },
      { plugin: 'notes', dispatchId: 'not-a-call', level: 'error', message: `${tag} notes unknown call`, ts },
      // Below the level alpha's session set (info): its own, and still not sent there.
      {
        plugin: 'notes',
        dispatchId: notes.params.dispatchId,
        level: 'debug',
        message: `${tag} alpha quiet`,
        ts,
      },
      {
        plugin: 'notes',
        dispatchId: notes.params.dispatchId,
        level: 'info',
        message: `${tag} alpha secret note`,
        data: { account: 'alpha-account-4711' },
        ts,
      },
      {
        plugin: 'mail',
        dispatchId: mail.params.dispatchId,
        level: 'info',
        message: `${tag} beta secret mail`,
        data: { account: 'beta-account-0815' },
        ts,
      },
    ],
  })
  notes.progress(1, 2, `${tag} alpha progress`)
  mail.progress(1, 2, `${tag} beta progress`)
}

/** The two dispatches, whichever came first. */
async function dispatchesOf(ext: FakeExtension): Promise<{ notes: Dispatch; mail: Dispatch }> {
  const both = [await ext.nextDispatch(WAIT_MS), await ext.nextDispatch(WAIT_MS)]
  const notes = both.find((d) => d.params.plugin === 'notes')
  const mail = both.find((d) => d.params.plugin === 'mail')
  if (!notes || !mail) throw new Error('expected one notes and one mail dispatch')
  return { notes, mail }
}

describe('per-call notifications between clients with disjoint scopes', () => {
  let fx: Fixture
  let ext: FakeExtension
  const tokens: Record<string, string> = {}

  beforeAll(async () => {
    fx = await startFixture(
      'node',
      {
        plugins: [
          { name: 'notes', tools: [{ name: 'list_notes' }] },
          { name: 'mail', tools: [{ name: 'send' }] },
          { name: 'vault', tools: [{ name: 'open' }] },
        ],
        permissions: {
          notes: { permission: 'auto' },
          mail: { permission: 'auto' },
          vault: { permission: 'ask' },
        },
        // Approvals wait for the person while the other client works; the waiting notices stay short.
      },
      { BRIDGE_APPROVAL_TIMEOUT_MS: '300000' },
    )
    for (const [name, scope] of Object.entries(SCOPES)) {
      const added = await runCli(
        ['client', 'add', name, '--json', ...scope, '--port', String(fx.daemon.port)],
        fx.configDir,
      )
      expect(added.code, added.stderr).toBe(0)
      tokens[name] = (JSON.parse(added.stdout) as { token: string }).token
    }
    const approvals = await runCli(
      ['client', 'approvals', 'gamma', 'on', '--port', String(fx.daemon.port)],
      fx.configDir,
    )
    expect(approvals.code, approvals.stderr).toBe(0)
    ext = await FakeExtension.connect(fx.daemon, { tabs: { notes: READY, mail: READY, vault: READY } })
  }, 60_000)
  afterAll(async () => {
    await ext?.close()
    await fx?.stop()
  })

  it('2025-11-25 sessions: each client reads only its own call’s logs and progress', async () => {
    const connect = (name: string) => connectMcp({ url: fx.daemon.url, secret: tokens[name] ?? '' }, name)
    const alpha = await connect('alpha')
    const beta = await connect('beta')
    const nobody = await connect('nobody')
    const progress: Record<string, string[]> = { alpha: [], beta: [] }
    try {
      await alpha.client.setLoggingLevel('info')
      const onprogress = (who: string) => (p: { message?: string }) =>
        void progress[who]?.push(p.message ?? '')
      const alphaCall = alpha.client.callTool({ name: 'notes_list_notes', arguments: {} }, undefined, {
        onprogress: onprogress('alpha'),
      })
      const betaCall = beta.client.callTool({ name: 'mail_send', arguments: {} }, undefined, {
        onprogress: onprogress('beta'),
      })
      const { notes, mail } = await dispatchesOf(ext)
      sendLogs(ext, notes, mail, 's1')
      await expect.poll(() => progress.alpha?.length, { timeout: WAIT_MS }).toBe(1)
      await expect.poll(() => progress.beta?.length, { timeout: WAIT_MS }).toBe(1)
      notes.succeed({ notes: [] })
      mail.succeed({ sent: true })
      await Promise.all([alphaCall, betaCall])

      const text = (mcp: McpConnection) => JSON.stringify(mcp.logs)
      await expect.poll(() => text(alpha), { timeout: WAIT_MS }).toContain('s1 alpha secret note')
      await expect.poll(() => text(beta), { timeout: WAIT_MS }).toContain('s1 beta secret mail')
      // A list change after the logs: once it reached a session's stream, so had anything sent before it.
      const changed = Promise.all([alpha, beta, nobody].map((mcp) => mcp.nextListChanged(WAIT_MS)))
      expect((await fx.daemon.fetch('/reload', { method: 'POST' })).status).toBe(200)
      await changed

      expect(alpha.logs).toHaveLength(1)
      expect(alpha.logs[0]).toMatchObject({
        level: 'info',
        logger: 'plugin:notes',
        data: { author: 'plugin', plugin: 'notes', message: 's1 alpha secret note' },
      })
      expect(beta.logs).toHaveLength(1)
      expect(beta.logs[0]).toMatchObject({ logger: 'plugin:mail', data: { message: 's1 beta secret mail' } })
      expect(text(beta)).not.toContain('alpha')
      expect(text(alpha)).not.toContain('beta')
      expect(nobody.logs).toEqual([])
      expect(progress).toEqual({ alpha: ['s1 alpha progress'], beta: ['s1 beta progress'] })
      // What each lists is its own scope; the list change itself named nothing.
      expect((await nobody.client.listTools()).tools).toEqual([])
      expect((await alpha.client.listTools()).tools.map((t) => t.name)).toEqual(['notes_list_notes'])
      expect((await beta.client.listTools()).tools.map((t) => t.name)).toEqual(['mail_send'])
    } finally {
      await Promise.all([alpha, beta, nobody].map((mcp) => mcp.close()))
    }
  })

  it('2026-07-28 stateless requests: each call’s stream carries only that call’s logs and progress', async () => {
    const received: Record<string, string[]> = { alpha: [], beta: [], nobody: [] }
    const connect = async (name: string) => {
      const mcp = await connectMcpV2(fx.daemon, tokens[name] ?? '', { name })
      mcp.client.setNotificationHandler('notifications/message', (n) => {
        received[name]?.push(JSON.stringify(n.params))
      })
      return mcp
    }
    const alpha = await connect('alpha')
    const beta = await connect('beta')
    const nobody = await connect('nobody')
    const progress: Record<string, string[]> = { alpha: [], beta: [] }
    const meta = { 'io.modelcontextprotocol/logLevel': 'debug' }
    try {
      const onprogress = (who: string) => (p: { message?: string }) =>
        void progress[who]?.push(p.message ?? '')
      const alphaCall = alpha.client.callTool(
        { name: 'notes_list_notes', arguments: {}, _meta: meta },
        { onprogress: onprogress('alpha') },
      )
      const betaCall = beta.client.callTool(
        { name: 'mail_send', arguments: {}, _meta: meta },
        { onprogress: onprogress('beta') },
      )
      const { notes, mail } = await dispatchesOf(ext)
      sendLogs(ext, notes, mail, 's2')
      await expect.poll(() => progress.alpha?.length, { timeout: WAIT_MS }).toBe(1)
      await expect.poll(() => progress.beta?.length, { timeout: WAIT_MS }).toBe(1)
      notes.succeed({ notes: [] })
      mail.succeed({ sent: true })
      await Promise.all([alphaCall, betaCall])
      // Each call's stream ended with its result: everything meant for it came before.
      // The stateless request asked for debug: its own quiet entry comes too, and nothing else.
      expect(received.alpha).toHaveLength(2)
      expect(received.alpha?.[0]).toContain('s2 alpha quiet')
      expect(received.alpha?.[1]).toContain('s2 alpha secret note')
      expect(received.alpha?.[1]).toContain('alpha-account-4711')
      expect(received.alpha?.join()).not.toContain('beta')
      expect(received.beta).toHaveLength(1)
      expect(received.beta?.[0]).toContain('s2 beta secret mail')
      expect(received.nobody).toEqual([])
      expect(progress).toEqual({ alpha: ['s2 alpha progress'], beta: ['s2 beta progress'] })
      expect((await nobody.client.listTools()).tools).toEqual([])
    } finally {
      await Promise.all([alpha, beta, nobody].map((mcp) => mcp.close()))
    }
  })

  const vaultShown = () =>
    ext.waitFor('confirmation.request', (m) => JSON.stringify(m.params ?? {}).includes('vault'), WAIT_MS)

  it('2025-11-25 sessions: an approval question and its waiting notices reach only the asking client', async () => {
    const gammaTransport = new StreamableHTTPClientTransport(new URL(`${fx.daemon.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${tokens.gamma ?? ''}` } },
    })
    const gamma = new Client({ name: 'gamma', version: '1.0.0' }, { capabilities: { elicitation: {} } })
    const questions: string[] = []
    gamma.setRequestHandler(ElicitRequestSchema, (request) => {
      questions.push(JSON.stringify(request.params))
      return new Promise(() => undefined)
    })
    await gamma.connect(gammaTransport)
    const beta = await connectMcp({ url: fx.daemon.url, secret: tokens.beta ?? '' }, 'beta')
    // Anything beta's session carries besides its logs, list changes and own progress lands here.
    const betaHeard: string[] = []
    beta.client.fallbackNotificationHandler = (n) => {
      betaHeard.push(JSON.stringify(n))
      return Promise.resolve()
    }
    // A progress notice of a token beta never gave is reported as an error, not dropped silently.
    beta.client.onerror = (error) => void betaHeard.push(String(error))
    beta.client.fallbackRequestHandler = (r) => {
      betaHeard.push(JSON.stringify(r))
      return Promise.reject(new Error('beta was asked something'))
    }
    const progress: Record<string, string[]> = { gamma: [], beta: [] }
    const onprogress = (who: string) => (p: { message?: string }) => void progress[who]?.push(p.message ?? '')
    try {
      await beta.client.setLoggingLevel('debug')
      const pending = gamma.callTool({ name: 'vault_open', arguments: {} }, undefined, {
        onprogress: onprogress('gamma'),
      })
      const shown = await vaultShown()
      await expect.poll(() => questions.length, { timeout: WAIT_MS }).toBe(1)
      await expect.poll(() => progress.gamma?.length, { timeout: WAIT_MS }).toBeGreaterThanOrEqual(1)

      // Beta works meanwhile, with its session and its own call open while gamma's waits.
      const betaCall = beta.client.callTool({ name: 'mail_send', arguments: {} }, undefined, {
        onprogress: onprogress('beta'),
      })
      const mail = await ext.nextDispatch(WAIT_MS)
      mail.progress(1, 2, 'beta own progress')
      await expect.poll(() => progress.beta?.length, { timeout: WAIT_MS }).toBe(1)
      const heardSoFar = progress.gamma?.length ?? 0
      await expect.poll(() => progress.gamma?.length, { timeout: WAIT_MS }).toBeGreaterThan(heardSoFar)
      mail.succeed({ sent: true })
      await betaCall

      ext.approve(shown.params?.id as string, 'deny')
      expect(textOf(await pending)).toMatch(/^\[approval_denied\]/)
      // A list change last: once beta's stream carried it, it had carried everything sent before.
      const changed = beta.nextListChanged(WAIT_MS)
      expect((await fx.daemon.fetch('/reload', { method: 'POST' })).status).toBe(200)
      await changed

      expect(questions[0]).toContain('vault')
      expect(progress.beta).toEqual(['beta own progress'])
      expect(betaHeard).toEqual([])
      expect(beta.logs).toEqual([])
    } finally {
      await gamma.close()
      await beta.close()
    }
  })

  it('2026-07-28 stateless requests: the approval question is in the asking call’s answer only', async () => {
    const post = (who: string, id: string, name: string, meta: Record<string, unknown> = {}) =>
      fetch(`${fx.daemon.url}/mcp`, {
        method: 'POST',
        headers: {
          ...HEADERS,
          authorization: `Bearer ${tokens[who] ?? ''}`,
          'mcp-protocol-version': STATELESS_REVISION,
          'mcp-method': 'tools/call',
          'mcp-name': name,
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: {
            name,
            arguments: {},
            _meta: {
              'io.modelcontextprotocol/protocolVersion': STATELESS_REVISION,
              'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
              'io.modelcontextprotocol/logLevel': 'debug',
              ...meta,
            },
          },
        }),
      })
    // Beta's call is open (its stream too) before gamma asks, and still open after.
    const betaResponse = post('beta', 'b1', 'mail_send', { progressToken: 'b1' })
    const mail = await ext.nextDispatch(WAIT_MS)
    const gammaBody = await (await post('gamma', 'g1', 'vault_open', { progressToken: 'g1' })).text()
    const shown = await vaultShown()
    mail.progress(1, 2, 'beta own progress')
    mail.succeed({ sent: true })
    const betaBody = await (await betaResponse).text()
    ext.approve(shown.params?.id as string, 'deny')

    expect(gammaBody).toContain('input_required')
    expect(gammaBody).toContain('requestState')
    expect(gammaBody).toContain('vault')
    expect(betaBody).toContain('beta own progress')
    for (const word of ['vault', 'gamma', 'input_required', 'requestState', 'approval'])
      expect(betaBody).not.toContain(word)
  })

  it('keeps every entry in the daemon’s own log, stray ones included', () => {
    const output = fx.daemon.output()
    for (const line of [
      'notes outside any call',
      'notes unknown call',
      'alpha secret note',
      'beta secret mail',
    ])
      expect(output).toContain(line)
  })
})
