import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ENGINES } from '../../helpers/daemon'
import { FakeExtension } from '../../helpers/fakeExtension'
import { connectMcp, textOf } from '../../helpers/mcpClient'
import { startFixture, type Fixture } from '../toolcall/fixture'

// Clients that never send DELETE must not pile up sessions: past the cap (100; 2 here through the
// documented BRIDGE_MAX_MCP_SESSIONS knob) the session idle the longest is closed.
describe.each(ENGINES)('/mcp session cap (%s engine)', (engine) => {
  let fx: Fixture
  const health = async () => (await (await fx.daemon.fetch('/health')).json()) as { mcpSessions: number }

  beforeAll(async () => {
    fx = await startFixture(
      engine,
      { permissions: { browser: { tools: { browser_list_tabs: 'auto' } } } },
      { BRIDGE_MAX_MCP_SESSIONS: '2' },
    )
  })
  afterAll(async () => {
    await fx?.stop()
  })

  it('closes the session idle the longest, never one with a call running', async () => {
    const a = await connectMcp(fx.daemon, 'a')
    const b = await connectMcp(fx.daemon, 'b')
    // a speaks after b: b is now the idlest.
    await a.client.listTools()
    const c = await connectMcp(fx.daemon, 'c')
    expect((await health()).mcpSessions).toBe(2)
    await expect(b.client.listTools()).rejects.toThrow(/404|Session not found/)
    expect((await a.client.listTools()).tools).toHaveLength(1)
    expect((await c.client.listTools()).tools).toHaveLength(1)
    await fx.daemon.waitForOutput(/more than 2 MCP sessions open: closing the one idle the longest/)

    // a has a call running, c spoke last: c goes, a and its call stay.
    const ext = await FakeExtension.connect(fx.daemon)
    const running = a.client.callTool({ name: 'browser_list_tabs', arguments: {} })
    const dispatch = await ext.nextDispatch()
    await c.client.listTools()
    const d = await connectMcp(fx.daemon, 'd')
    await expect(c.client.listTools()).rejects.toThrow(/404|Session not found/)
    dispatch.succeed({ tabs: [] })
    expect(textOf(await running)).toBe('{"tabs":[]}')
    expect((await d.client.listTools()).tools).toHaveLength(1)
    expect((await health()).mcpSessions).toBe(2)

    await Promise.all([a.close(), d.close(), b.client.close(), c.client.close()])
    await ext.close()
    expect((await health()).mcpSessions).toBe(0)
  })
})
