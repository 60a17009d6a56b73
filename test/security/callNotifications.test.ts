// Two agents with disjoint scopes share one daemon, and a third is scoped to nothing: what a call says
// back while it runs (its plugin's log entries, its progress) reaches only the client that made it, on
// both MCP revisions, with the real MCP SDK clients (v1 in a 2025-11-25 session, v2 on stateless
// 2026-07-28 requests). The extension sends, in one batch, each call's own entries, an entry of no
// call, and an entry one plugin claims for the other plugin's call: neither agent reads a byte of the
// other's, the agent scoped to nothing reads none, and tools/list_changed carries no detail at all.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FakeExtension, READY, type Dispatch } from '../helpers/fakeExtension'
import { connectMcp, type McpConnection } from '../helpers/mcpClient'
import { connectMcpV2 } from '../helpers/mcpClientV2'
import { runCli } from '../integration/cli/runCli'
import { startFixture, type Fixture } from '../integration/toolcall/fixture'

const WAIT_MS = Number(process.env.BRIDGE_TEST_WAIT_MS ?? 20_000)

const SCOPES: Record<string, string[]> = {
  alpha: ['--plugins', 'notes', '--builtins', 'none', '--sites', 'none'],
  beta: ['--plugins', 'mail', '--builtins', 'none', '--sites', 'none'],
  nobody: ['--plugins', 'none', '--builtins', 'none', '--sites', 'none'],
}

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
    fx = await startFixture('node', {
      plugins: [
        { name: 'notes', tools: [{ name: 'list_notes' }] },
        { name: 'mail', tools: [{ name: 'send' }] },
      ],
      permissions: { notes: { permission: 'auto' }, mail: { permission: 'auto' } },
    })
    for (const [name, scope] of Object.entries(SCOPES)) {
      const added = await runCli(
        ['client', 'add', name, '--json', ...scope, '--port', String(fx.daemon.port)],
        fx.configDir,
      )
      expect(added.code, added.stderr).toBe(0)
      tokens[name] = (JSON.parse(added.stdout) as { token: string }).token
    }
    ext = await FakeExtension.connect(fx.daemon, { tabs: { notes: READY, mail: READY } })
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
