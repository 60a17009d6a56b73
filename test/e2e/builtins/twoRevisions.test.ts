import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startLiveBridge, type LiveBridge } from '../../helpers/liveBridge'
import { BROWSER_START_TIMEOUT_MS } from '../../helpers/timing'
import { textOf, type McpConnection } from '../../helpers/mcpClient'
import { connectMcpV2, type McpV2Connection } from '../../helpers/mcpClientV2'
import { startFixtureSite, type FixtureSite } from './fixtureSite'

// Two agents on one daemon, one per MCP revision: an SDK v1 client in a 2025-11-25 session and an
// SDK v2 client speaking the stateless 2026-07-28, each with a token of its own, against the real
// extension in Chromium. Each keeps its own tab group across all its requests (the stateless one has
// no session to carry it), and neither may touch the other's tabs unless told.
describe('a 2025-11-25 agent and a 2026-07-28 agent side by side in the real browser', () => {
  let bridge: LiveBridge<FixtureSite>
  let site: FixtureSite
  let v1: McpConnection
  let v2: McpV2Connection

  beforeAll(async () => {
    bridge = await startLiveBridge({
      via: 'server',
      site: startFixtureSite,
      config: () => ({
        // The core set, plus the tools used here that are outside it.
        permissions: {
          browser: {
            permission: 'auto',
            tools: { browser_list_tab_groups: 'auto', browser_get_text: 'auto' },
          },
        },
      }),
    })
    site = bridge.site
    const [sessionToken, statelessToken] = [
      await bridge.addClient('session-agent'),
      await bridge.addClient('stateless-agent'),
    ]
    v1 = await bridge.connect({ token: sessionToken })
    v2 = bridge.own(await connectMcpV2(bridge.daemon, statelessToken), (c) => c.close())
  }, BROWSER_START_TIMEOUT_MS)
  afterAll(() => bridge?.close())

  const json = async <T>(
    client: { callTool: McpConnection['client']['callTool'] } | McpV2Connection['client'],
    name: string,
    args: Record<string, unknown> = {},
  ): Promise<T> => {
    const result = await client.callTool({ name, arguments: args })
    if (result.isError) throw new Error(`${name}: ${textOf(result)}`)
    return JSON.parse(textOf(result)) as T
  }

  it('gives each agent its own tab group, kept across every stateless request', async () => {
    const s1 = await json<{ tabId: number }>(v1.client, 'browser_open_tab', { url: site.url('/') })
    const n1 = await json<{ tabId: number }>(v2.client, 'browser_open_tab', { url: site.url('/form') })
    // Another request, another HTTP exchange: the same agent, the same group.
    const n2 = await json<{ tabId: number }>(v2.client, 'browser_open_tab', { url: site.url('/long') })
    const { groups } = await json<{ groups: { title: string; agent?: string; tabIds: number[] }[] }>(
      v2.client,
      'browser_list_tab_groups',
    )
    expect(groups).toContainEqual(expect.objectContaining({ agent: 'session-agent', tabIds: [s1.tabId] }))
    expect(groups).toContainEqual(
      expect.objectContaining({ agent: 'stateless-agent', tabIds: [n1.tabId, n2.tabId] }),
    )
    // Its own tab, from a later request: no refusal.
    expect(
      await json<{ text: string }>(v2.client, 'browser_get_text', { tabId: n1.tabId, selector: 'h1' }),
    ).toHaveProperty('text')
    // The other agent's tab: refused, by name.
    const refused = await v2.client.callTool({ name: 'browser_get_text', arguments: { tabId: s1.tabId } })
    expect(refused.isError).toBe(true)
    expect(textOf(refused)).toContain(`tab ${s1.tabId} is in the tab group of "session-agent", another agent`)
    const back = await v1.client.callTool({ name: 'browser_get_text', arguments: { tabId: n2.tabId } })
    expect(textOf(back)).toContain('"stateless-agent", another agent')
  })
})
