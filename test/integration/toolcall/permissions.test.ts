import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { ENGINES } from '../../helpers/daemon'
import { FakeExtension } from '../../helpers/fakeExtension'
import { connectMcp, textOf, type McpConnection } from '../../helpers/mcpClient'
import { auditEntries, startFixture, type Fixture } from './fixture'

const permissions = {
  browser: {
    tools: {
      browser_list_tabs: 'auto',
      browser_navigate: 'ask',
      browser_go_back: 'ask',
      browser_go_forward: 'ask',
      browser_reload: 'ask',
      browser_close_tab: 'off',
    },
  },
}

const configOnDisk = (fx: Fixture) =>
  JSON.parse(readFileSync(join(fx.configDir, 'config.json'), 'utf8')) as {
    permissions: Record<string, { tools?: Record<string, string>; permission?: string }>
    skipPermissions?: boolean
  }

describe.each(ENGINES)('permissions and approvals (%s engine)', (engine) => {
  let fx: Fixture
  let mcp: McpConnection
  let ext: FakeExtension | undefined
  const call = (name: string, args: Record<string, unknown> = {}, options = {}) =>
    mcp.client.callTool({ name, arguments: args }, undefined, options)
  const listed = async () =>
    Object.fromEntries((await mcp.client.listTools()).tools.map((t) => [t.name, t.description]))

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

  it('lists ask and auto tools only, marking ask tools', async () => {
    const tools = await listed()
    expect(Object.keys(tools).sort()).toEqual([
      'browser_go_back',
      'browser_go_forward',
      'browser_list_tabs',
      'browser_navigate',
      'browser_reload',
    ])
    expect(tools.browser_navigate).toMatch(/^\[asks for approval\] /)
    expect(tools.browser_list_tabs).not.toMatch(/asks for approval/)
  })

  it('refuses an off tool with permission_off and a hint, and audits it', async () => {
    const result = await call('browser_close_tab', { tabId: 1 })
    expect(result.isError).toBe(true)
    expect(textOf(result)).toBe(
      '[permission_off] this tool is off; enable it in the bridge side panel or with `bridge config set`',
    )
    const [entry] = await auditEntries(fx.daemon, 'limit=1')
    expect(entry).toMatchObject({ tool: 'browser_close_tab', plugin: 'browser', success: false })
    expect(entry?.error).toMatchObject({ code: 'permission_off', category: 'permission' })
  })

  it('fails an ask tool at once with extension_not_connected when no extension is connected', async () => {
    await expect
      .poll(
        async () =>
          ((await (await fx.daemon.fetch('/health')).json()) as { extensionConnected: boolean })
            .extensionConnected,
      )
      .toBe(false)
    const result = await call('browser_navigate', { url: 'https://example.com' })
    expect(textOf(result)).toMatch(/^\[extension_not_connected\] this tool needs approval in the browser/)
  })

  it('asks the side panel and runs the call after allow_once', async () => {
    ext = await FakeExtension.connect(fx.daemon)
    const before = Date.now()
    const pending = call('browser_navigate', { url: 'https://example.com' })
    const request = await ext.waitFor('confirmation.request')
    expect(request.params).toMatchObject({
      plugin: 'browser',
      tool: 'browser_navigate',
      params: { url: 'https://example.com' },
    })
    expect(request.params?.expiresAt).toBeGreaterThan(before)
    ext.approve(request.params?.id as string, 'allow_once')
    ;(await ext.nextDispatch()).succeed('navigated')
    expect(textOf(await pending)).toBe('navigated')
    expect((await listed()).browser_navigate).toMatch(/^\[asks for approval\] /)
  })

  it("audits a call's own duration apart from the time the person took to approve it", async () => {
    ext = await FakeExtension.connect(fx.daemon)
    const before = Date.now()
    const pending = call('browser_navigate', { url: 'https://example.com/slow-person' })
    const request = await ext.waitFor('confirmation.request')
    // The person takes a while (within the fixture's 1.5 s approval timeout); the tool answers at once.
    const thinkingMs = 400
    await new Promise((resolve) => setTimeout(resolve, thinkingMs))
    ext.approve(request.params?.id as string, 'allow_once')
    ;(await ext.nextDispatch()).succeed('navigated')
    expect(textOf(await pending)).toBe('navigated')
    const total = Date.now() - before
    const [entry] = await auditEntries(fx.daemon, 'limit=1&tool=browser_navigate')
    expect(entry?.approvalMs).toBeGreaterThanOrEqual(thinkingMs)
    expect(entry!.durationMs + entry!.approvalMs!).toBeLessThanOrEqual(total)
    expect(entry!.durationMs).toBeLessThan(total - thinkingMs)
    const end = await ext.waitFor('tool.invocationEnd')
    expect((end.params as { durationMs: number }).durationMs).toBeLessThan(total - thinkingMs)
  })

  it('persists auto after allow_always and stops asking', async () => {
    ext = await FakeExtension.connect(fx.daemon)
    const changed = mcp.nextListChanged()
    const pending = call('browser_go_back')
    const request = await ext.waitFor('confirmation.request')
    ext.approve(request.params?.id as string, 'allow_always')
    ;(await ext.nextDispatch()).succeed('back')
    expect(textOf(await pending)).toBe('back')
    await changed
    expect(configOnDisk(fx).permissions.browser?.tools?.browser_go_back).toBe('auto')
    expect((await listed()).browser_go_back).not.toMatch(/asks for approval/)
    const again = call('browser_go_back')
    ;(await ext.nextDispatch()).succeed('back again')
    expect(textOf(await again)).toBe('back again')
    expect(ext.received.filter((m) => m.method === 'confirmation.request')).toEqual([])
  })

  it('fails with approval_denied after deny and never dispatches', async () => {
    ext = await FakeExtension.connect(fx.daemon)
    const pending = call('browser_go_forward')
    const request = await ext.waitFor('confirmation.request')
    ext.approve(request.params?.id as string, 'deny')
    expect(textOf(await pending)).toBe('[approval_denied] the user denied the call')
    expect(ext.received.filter((m) => m.method === 'tool.dispatch')).toEqual([])
  })

  it('fails with approval_timeout at the deadline, withdraws the request and reports waiting meanwhile', async () => {
    ext = await FakeExtension.connect(fx.daemon)
    const progress: { message?: string }[] = []
    const pending = call('browser_reload', {}, { onprogress: (p: { message?: string }) => progress.push(p) })
    const request = await ext.waitFor('confirmation.request')
    expect(textOf(await pending)).toBe('[approval_timeout] nobody approved the call in time')
    const cancel = await ext.waitFor('confirmation.cancel')
    expect(cancel.params).toEqual({ id: request.params?.id, reason: 'timeout' })
    expect(progress.length).toBeGreaterThanOrEqual(2)
    expect(progress.every((p) => p.message === 'waiting for approval')).toBe(true)
    // A decision after the deadline changes nothing.
    ext.approve(request.params?.id as string, 'allow_once')
    const [entry] = await auditEntries(fx.daemon, 'limit=1&tool=browser_reload')
    expect(entry?.error?.code).toBe('approval_timeout')
  })

  it('withdraws the approval request when the client cancels the call', async () => {
    ext = await FakeExtension.connect(fx.daemon)
    const controller = new AbortController()
    const pending = call('browser_navigate', { url: 'https://example.com' }, { signal: controller.signal })
    const request = await ext.waitFor('confirmation.request')
    controller.abort()
    await expect(pending).rejects.toThrow()
    const cancel = await ext.waitFor('confirmation.cancel')
    expect(cancel.params).toEqual({ id: request.params?.id, reason: 'cancelled' })
    await expect
      .poll(async () => (await auditEntries(fx.daemon, 'limit=1'))[0]?.error?.code)
      .toBe('cancelled')
  })

  it('fails a waiting call with extension_disconnected when the extension leaves', async () => {
    ext = await FakeExtension.connect(fx.daemon)
    const pending = call('browser_navigate', { url: 'https://example.com' })
    await ext.waitFor('confirmation.request')
    ext.terminate()
    expect(textOf(await pending)).toMatch(/^\[extension_disconnected\]/)
  })

  it('changes a tool permission from the side panel: persisted, broadcast, and listed', async () => {
    ext = await FakeExtension.connect(fx.daemon)
    const changed = mcp.nextListChanged()
    const answer = await ext.request('config.setToolPermission', {
      plugin: 'browser',
      tool: 'browser_close_tab',
      permission: 'auto',
    })
    expect(answer.result).toEqual({ ok: true })
    await changed
    const broadcast = await ext.waitFor('plugins.changed')
    // The built-in tools travel with it: the extension refuses a dispatch for a tool off by this list.
    expect(broadcast.params).toMatchObject({ plugins: [], failedPlugins: [], skipPermissions: false })
    expect(
      (broadcast.params?.browserTools as { name: string; permission: string }[]).find(
        (t) => t.name === 'browser_close_tab',
      )?.permission,
    ).toBe('auto')
    expect(configOnDisk(fx).permissions.browser?.tools?.browser_close_tab).toBe('auto')
    expect(Object.keys(await listed())).toContain('browser_close_tab')
    const state = await ext.request('config.getState', {})
    const tool = (state.result?.browserTools as { name: string; permission: string }[]).find(
      (t) => t.name === 'browser_close_tab',
    )
    expect(tool?.permission).toBe('auto')
  })

  it('refuses a permission change for a tool or plugin that does not exist', async () => {
    ext = await FakeExtension.connect(fx.daemon)
    const noTool = await ext.request('config.setToolPermission', {
      plugin: 'browser',
      tool: 'browser_nope',
      permission: 'auto',
    })
    expect(noTool.error).toEqual({ code: -32602, message: 'plugin "browser" has no tool "browser_nope"' })
    const noPlugin = await ext.request('config.setPluginPermission', { plugin: 'ghost', permission: 'auto' })
    expect(noPlugin.error).toEqual({ code: -32602, message: 'no plugin named "ghost" is loaded' })
  })

  it('runs ask tools as auto under the skip flag set from the side panel; off tools stay off', async () => {
    ext = await FakeExtension.connect(fx.daemon)
    await ext.request('config.setToolPermission', {
      plugin: 'browser',
      tool: 'browser_close_tab',
      permission: 'off',
    })
    const changed = mcp.nextListChanged()
    expect((await ext.request('config.setSkipPermissions', { enabled: true })).result).toEqual({ ok: true })
    await changed
    expect(configOnDisk(fx).skipPermissions).toBe(true)
    expect((await listed()).browser_navigate).not.toMatch(/asks for approval/)
    const pending = call('browser_navigate', { url: 'https://example.com' })
    ;(await ext.nextDispatch()).succeed('no question asked')
    expect(textOf(await pending)).toBe('no question asked')
    expect(textOf(await call('browser_close_tab', { tabId: 1 }))).toMatch(/^\[permission_off\]/)
    const health = (await (await fx.daemon.fetch('/health')).json()) as { skipPermissions: boolean }
    expect(health.skipPermissions).toBe(true)
    await ext.request('config.setSkipPermissions', { enabled: false })
    expect((await listed()).browser_navigate).toMatch(/^\[asks for approval\] /)
  })

  it('sets a plugin default permission for every built-in tool', async () => {
    ext = await FakeExtension.connect(fx.daemon)
    const answer = await ext.request('config.setPluginPermission', { plugin: 'browser', permission: 'ask' })
    expect(answer.result).toEqual({ ok: true })
    const tools = await listed()
    // Per-tool overrides still win over the new default.
    expect(tools.browser_list_tabs).not.toMatch(/asks for approval/)
    expect(tools.browser_screenshot).toMatch(/^\[asks for approval\] /)
    expect(Object.keys(tools)).not.toContain('browser_close_tab')
  })
})

describe.each(ENGINES)('BRIDGE_DANGEROUSLY_SKIP_PERMISSIONS=1 (%s engine)', (engine) => {
  let fx: Fixture
  let mcp: McpConnection
  beforeAll(async () => {
    fx = await startFixture(
      engine,
      { permissions: { browser: { tools: { browser_navigate: 'ask', browser_close_tab: 'off' } } } },
      { BRIDGE_DANGEROUSLY_SKIP_PERMISSIONS: '1' },
    )
    mcp = await connectMcp(fx.daemon)
  })
  afterAll(async () => {
    await mcp?.close()
    await fx?.stop()
  })

  it('runs ask tools without approval and keeps off tools off', async () => {
    const ext = await FakeExtension.connect(fx.daemon)
    const tools = (await mcp.client.listTools()).tools
    expect(tools.map((t) => [t.name, t.description?.startsWith('[asks')])).toEqual([
      ['browser_navigate', false],
    ])
    const pending = mcp.client.callTool({
      name: 'browser_navigate',
      arguments: { url: 'https://example.com' },
    })
    ;(await ext.nextDispatch()).succeed('ran')
    expect(textOf(await pending)).toBe('ran')
    const off = await mcp.client.callTool({ name: 'browser_close_tab', arguments: { tabId: 1 } })
    expect(textOf(off)).toMatch(/^\[permission_off\]/)
    expect(ext.received.filter((m) => m.method === 'confirmation.request')).toEqual([])
    const health = (await (await fx.daemon.fetch('/health')).json()) as { skipPermissions: boolean }
    expect(health.skipPermissions).toBe(true)
    await ext.close()
  })
})
