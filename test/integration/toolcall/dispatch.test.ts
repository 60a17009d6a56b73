import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { ENGINES } from '../../helpers/daemon'
import { FakeExtension } from '../../helpers/fakeExtension'
import { connectMcp, textOf, type McpConnection } from '../../helpers/mcpClient'
import { auditEntries, startFixture, type Fixture } from './fixture'

// Built-in tools stand in for plugin tools here: same path, pseudo-plugin `browser`. A text result
// comes from browser_snapshot, whose result is text; browser_list_tabs declares its result's shape.
const permissions = {
  browser: {
    tools: {
      browser_list_tabs: 'auto',
      browser_navigate: 'auto',
      browser_snapshot: 'auto',
      browser_screenshot: 'auto',
    },
  },
}
const TAB = {
  tabId: 3,
  windowId: 1,
  url: 'https://notes.test/',
  title: 'Notes',
  active: true,
  status: 'complete',
}

describe.each(ENGINES)('tool dispatch (%s engine)', (engine) => {
  let fx: Fixture
  let mcp: McpConnection
  let ext: FakeExtension | undefined
  let calls = 0
  const call = (name: string, args: Record<string, unknown> = {}, options = {}) => {
    calls++
    return mcp.client.callTool({ name, arguments: args }, undefined, options)
  }

  beforeAll(async () => {
    fx = await startFixture(engine, { permissions })
    mcp = await connectMcp(fx.daemon)
  })
  afterEach(async () => {
    await ext?.close()
    ext = undefined
  })
  afterAll(async () => {
    await mcp?.close()
    await fx?.stop()
  })

  it('runs a call in the extension and returns its output as compact JSON text', async () => {
    ext = await FakeExtension.connect(fx.daemon)
    const pending = call('browser_list_tabs', { urlContains: 'notes' })
    const dispatch = await ext.nextDispatch()
    expect(dispatch.params).toMatchObject({
      plugin: 'browser',
      tool: 'browser_list_tabs',
      input: { urlContains: 'notes' },
    })
    const start = await ext.waitFor('tool.invocationStart')
    expect(start.params).toEqual({
      dispatchId: dispatch.params.dispatchId,
      plugin: 'browser',
      tool: 'browser_list_tabs',
    })
    const tabs = { tabs: [{ ...TAB, focusedWindow: true }] }
    dispatch.succeed(tabs)
    const result = await pending
    expect(result.isError).toBeFalsy()
    expect(textOf(result)).toBe(JSON.stringify(tabs))
    expect(result.structuredContent).toEqual(tabs)
    const end = await ext.waitFor('tool.invocationEnd')
    expect(end.params).toMatchObject({ dispatchId: dispatch.params.dispatchId, success: true })
  })

  it('tells the extension and the audit log which client and session made the call', async () => {
    ext = await FakeExtension.connect(fx.daemon)
    const pending = call('browser_navigate', { url: 'https://notes.test/who' })
    const dispatch = await ext.nextDispatch()
    // The secret without an Origin is the CLI's credential; MCP client tokens carry their own name.
    expect(dispatch.params).toMatchObject({ client: 'cli', session: mcp.transport.sessionId })
    dispatch.succeed({ ok: true })
    await pending
    const entry = (await auditEntries(fx.daemon)).find((e) => e.tool === 'browser_navigate')
    expect(entry).toMatchObject({ tool: 'browser_navigate', client: 'cli', success: true })
  })

  it('returns an image output as MCP image content', async () => {
    ext = await FakeExtension.connect(fx.daemon, {
      autoAnswer: () => ({ type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' }),
    })
    const result = await call('browser_screenshot')
    expect(result.content).toEqual([{ type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' }])
  })

  it('caps a huge text result at 100 KB with a truncation marker saying how to narrow the call', async () => {
    ext = await FakeExtension.connect(fx.daemon, { autoAnswer: () => 'x'.repeat(300 * 1024) })
    const text = textOf(await call('browser_snapshot'))
    expect(text.startsWith('x'.repeat(1000))).toBe(true)
    expect(text).toMatch(
      /x\n\[truncated: the result was 307200 bytes, cut to 102400; to get less, pass selector to snapshot one part of the page, depth to leave out nesting, or use browser_find or browser_query\]$/,
    )
    expect(text.length).toBeLessThanOrEqual(100 * 1024)
  })

  it('rejects input that fails the JSON Schema before dispatch', async () => {
    ext = await FakeExtension.connect(fx.daemon)
    const result = await call('browser_navigate', { url: 'ftp://example.com' })
    expect(result.isError).toBe(true)
    expect(textOf(result)).toMatch(/^\[invalid_input\] url must match pattern/)
    // An argument the tool does not take is refused by name, not dropped.
    const unknown = await call('browser_navigate', { url: 'https://example.com', newTab: true })
    expect(textOf(unknown)).toBe('[invalid_input] input has an unknown property "newTab"')
    expect(ext.received.filter((m) => m.method === 'tool.dispatch')).toEqual([])
  })

  it('answers an unknown tool with unknown_tool', async () => {
    const result = await call('nothere_tool')
    expect(textOf(result)).toBe('[unknown_tool] no tool named "nothere_tool"')
  })

  it('fails at once with extension_not_connected when no extension is connected', async () => {
    await expect
      .poll(
        async () =>
          ((await (await fx.daemon.fetch('/health')).json()) as { extensionConnected: boolean })
            .extensionConnected,
      )
      .toBe(false)
    const result = await call('browser_list_tabs')
    expect(result.isError).toBe(true)
    expect(textOf(result)).toMatch(/^\[extension_not_connected\]/)
  })

  it('passes a tool error from the extension through with its category', async () => {
    ext = await FakeExtension.connect(fx.daemon)
    const pending = call('browser_list_tabs')
    ;(await ext.nextDispatch()).fail(-32003, 'the page said no', { code: 'forbidden', category: 'auth' })
    const result = await pending
    expect(textOf(result)).toBe('[tool_error] the page said no')
    const [entry] = await auditEntries(fx.daemon, 'limit=1')
    expect(entry?.error).toEqual({ code: 'tool_error', message: 'the page said no', category: 'auth' })
  })

  it('maps the extension tab errors to tab_closed and tab_unavailable', async () => {
    ext = await FakeExtension.connect(fx.daemon)
    const closed = call('browser_list_tabs')
    ;(await ext.nextDispatch()).fail(-32001, 'no matching tab')
    expect(textOf(await closed)).toBe('[tab_closed] no matching tab')
    const unavailable = call('browser_list_tabs')
    ;(await ext.nextDispatch()).fail(-32002, 'not signed in')
    expect(textOf(await unavailable)).toBe('[tab_unavailable] not signed in')
  })

  it('fails with timeout when the tool neither answers nor reports progress, and drops the late answer', async () => {
    ext = await FakeExtension.connect(fx.daemon)
    const pending = call('browser_snapshot')
    const dispatch = await ext.nextDispatch()
    const result = await pending
    expect(textOf(result)).toMatch(/^\[timeout\] the tool did not answer or report progress in time/)
    dispatch.succeed('too late')
    // The daemon stays healthy and the next call gets its own answer, not the late one.
    const next = call('browser_snapshot')
    ;(await ext.nextDispatch()).succeed('fresh')
    expect(textOf(await next)).toBe('fresh')
  })

  it('keeps a call alive past the timeout while progress arrives, forwarding it to the client', async () => {
    ext = await FakeExtension.connect(fx.daemon)
    const seen: { progress: number; total?: number; message?: string }[] = []
    const pending = call('browser_snapshot', {}, { onprogress: (p: (typeof seen)[number]) => seen.push(p) })
    const dispatch = await ext.nextDispatch()
    // 5 reports 500 ms apart: 2.5 s in all, well past the 1 s call timeout.
    for (let i = 1; i <= 5; i++) {
      await new Promise((r) => setTimeout(r, 500))
      dispatch.progress(i, 5, `step ${i}`)
    }
    dispatch.succeed('done')
    expect(textOf(await pending)).toBe('done')
    expect(seen.map((p) => p.message)).toEqual(['step 1', 'step 2', 'step 3', 'step 4', 'step 5'])
    expect(seen[4]).toMatchObject({ progress: 5, total: 5 })
  })

  it('stops at the hard cap even when progress keeps coming', async () => {
    ext = await FakeExtension.connect(fx.daemon)
    const pending = call('browser_list_tabs')
    const dispatch = await ext.nextDispatch()
    const ticker = setInterval(() => dispatch.progress(1), 300)
    const result = await pending
    clearInterval(ticker)
    expect(textOf(result)).toMatch(/^\[timeout\] the tool ran past the maximum duration of a call/)
  })

  it('runs 5 calls at once and refuses the 6th with plugin_busy', async () => {
    ext = await FakeExtension.connect(fx.daemon)
    const five = Array.from({ length: 5 }, (_, i) => call('browser_snapshot', { selector: `#n${i}` }))
    const dispatches = await Promise.all(five.map(() => ext!.nextDispatch()))
    const sixth = await call('browser_list_tabs')
    expect(textOf(sixth)).toBe(
      '[plugin_busy] browser already runs 5 calls; wait for in-flight calls to finish',
    )
    for (const d of dispatches) d.succeed((d.params.input as { selector: string }).selector)
    expect((await Promise.all(five)).map(textOf)).toEqual(['#n0', '#n1', '#n2', '#n3', '#n4'])
    // Slots are free again.
    const again = call('browser_snapshot')
    ;(await ext.nextDispatch()).succeed('ok')
    expect(textOf(await again)).toBe('ok')
  })

  it('fails every in-flight call with extension_disconnected when the extension drops', async () => {
    ext = await FakeExtension.connect(fx.daemon)
    const a = call('browser_list_tabs')
    const b = call('browser_navigate', { url: 'https://example.com' })
    await ext.nextDispatch()
    await ext.nextDispatch()
    ext.terminate()
    const results = await Promise.all([a, b])
    for (const r of results)
      expect(textOf(r)).toBe('[extension_disconnected] the extension disconnected during the call')
    const health = (await (await fx.daemon.fetch('/health')).json()) as { extensionConnected: boolean }
    expect(health.extensionConnected).toBe(false)
  })

  it('replaces the extension connection: the old socket is closed with 4000 and its calls fail', async () => {
    const first = await FakeExtension.connect(fx.daemon)
    const pending = call('browser_list_tabs')
    await first.nextDispatch()
    ext = await FakeExtension.connect(fx.daemon)
    expect(await first.closed).toEqual({ code: 4000, reason: 'replaced' })
    expect(textOf(await pending)).toMatch(/^\[extension_disconnected\]/)
    const next = call('browser_snapshot')
    ;(await ext.nextDispatch()).succeed('from the new connection')
    expect(textOf(await next)).toBe('from the new connection')
    const health = (await (await fx.daemon.fetch('/health')).json()) as Record<string, unknown>
    expect(health).toMatchObject({ extensionConnected: true, extensionConnections: 1 })
  })

  it('cancels a running call when the client cancels it, and audits it once', async () => {
    ext = await FakeExtension.connect(fx.daemon)
    const controller = new AbortController()
    const pending = call('browser_list_tabs', {}, { signal: controller.signal })
    const dispatch = await ext.nextDispatch()
    controller.abort()
    await expect(pending).rejects.toThrow()
    const end = await ext.waitFor(
      'tool.invocationEnd',
      (m) => m.params?.dispatchId === dispatch.params.dispatchId,
    )
    expect(end.params).toMatchObject({ success: false })
    await expect
      .poll(async () => (await auditEntries(fx.daemon, 'limit=1'))[0]?.error?.code)
      .toBe('cancelled')
    dispatch.succeed('after the client gave up')
  })

  it('writes exactly one audit entry per call', async () => {
    const entries = await auditEntries(fx.daemon)
    expect(entries).toHaveLength(calls)
  })
})
