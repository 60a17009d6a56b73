import { CallToolResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { BrowserHarness } from '../../helpers/browser'
import type { RunningDaemon } from '../../helpers/daemon'
import { startLiveBridge, type LiveBridge } from '../../helpers/liveBridge'
import { BROWSER_START_TIMEOUT_MS } from '../../helpers/timing'
import { textOf, type McpConnection } from '../../helpers/mcpClient'
import { BROWSER_TOOL_NAMES, CORE_BROWSER_TOOLS } from '../../../src/tools'
import { startFixtureSite, type FixtureSite } from './fixtureSite'

// The whole chain for built-in tools: MCP client -> daemon (/mcp, validation, permissions, audit) ->
// /ws -> the real extension in Chromium -> Chrome APIs -> back, as an agent sees it.
describe('built-in browser tools through the daemon and the real extension', () => {
  let bridge: LiveBridge<FixtureSite>
  let daemon: RunningDaemon
  let browser: BrowserHarness
  let site: FixtureSite
  let mcp: McpConnection

  beforeAll(async () => {
    bridge = await startLiveBridge({
      via: 'server',
      site: startFixtureSite,
      config: () => ({
        permissions: {
          // The core set, plus one group opted into and one tool set by itself.
          browser: {
            permission: 'auto',
            groups: ['reading'],
            tools: {
              browser_get_cookies: 'off',
              browser_close_tab: 'ask',
              extension_get_state: 'auto',
              browser_get_text: 'auto',
            },
          },
        },
      }),
    })
    ;({ daemon, browser, site } = bridge)
    mcp = await bridge.connect()
  }, BROWSER_START_TIMEOUT_MS)
  afterAll(() => bridge?.close())

  const call = async (name: string, args: Record<string, unknown> = {}) =>
    (await mcp.client.callTool({ name, arguments: args })) as CallToolResult
  const json = async <T>(name: string, args: Record<string, unknown> = {}): Promise<T> => {
    const result = await call(name, args)
    if (result.isError) throw new Error(`${name}: ${textOf(result)}`)
    return JSON.parse(textOf(result)) as T
  }

  it('lists the core set, the groups opted into and the tools set one by one; the rest stays off', async () => {
    const { tools } = await mcp.client.listTools()
    const navigate = tools.find((t) => t.name === 'browser_navigate')
    expect(navigate?.description).toContain('Load a URL in a tab')
    expect(navigate?.inputSchema).toMatchObject({ type: 'object', required: ['url'] })
    expect(tools.map((t) => t.name).sort()).toEqual(
      [...CORE_BROWSER_TOOLS, 'browser_query', 'extension_get_state', 'browser_get_text'].sort(),
    )
    expect(CORE_BROWSER_TOOLS.size).toBeLessThan(25)
    // tabId and otherAgent are described once, in browser_list_tabs.
    const click = tools.find((t) => t.name === 'browser_click')!
    expect(click.inputSchema.properties).toMatchObject({
      tabId: { type: 'integer' },
      otherAgent: { type: 'boolean' },
    })
    expect(JSON.stringify(click.inputSchema.properties?.tabId)).not.toContain('description')
    expect(JSON.stringify(click.inputSchema.properties?.otherAgent)).not.toContain('description')
    expect(tools.find((t) => t.name === 'browser_list_tabs')?.description).toMatch(/tabId.*otherAgent/)
  })

  it('reports every built-in tool in /health, with the disabled ones named', async () => {
    const health = (await (await daemon.fetch('/health')).json()) as {
      browserToolCount: number
      browserToolNames: string[]
      disabledBrowserTools: string[]
    }
    expect([...health.browserToolNames].sort()).toEqual([...BROWSER_TOOL_NAMES].sort())
    expect(health.browserToolCount).toBe(BROWSER_TOOL_NAMES.length)
    // Beyond the core set, the `reading` group and two tools set one by one, every tool is off.
    const listed = new Set([
      ...CORE_BROWSER_TOOLS,
      'browser_query',
      'extension_get_state',
      'browser_get_text',
    ])
    expect([...health.disabledBrowserTools].sort()).toEqual(
      BROWSER_TOOL_NAMES.filter((n) => !listed.has(n)).sort(),
    )
    expect(health.disabledBrowserTools).toContain('browser_evaluate')
  })

  it('opens a tab, snapshots it as text and clicks a ref from the snapshot', async () => {
    const tab = await json<{ tabId: number; title: string }>('browser_open_tab', { url: site.url('/form') })
    expect(tab.title).toBe('Form page')
    const snapshot = await call('browser_snapshot', { tabId: tab.tabId })
    const text = textOf(snapshot)
    expect(text.split('\n')[0]).toBe(`URL: ${site.url('/form')}`)
    const ref = /- button "Save draft" \[ref=(e\d+)\]/.exec(text)?.[1]
    expect(ref).toBeDefined()
    const clicked = await call('browser_click', { tabId: tab.tabId, ref })
    expect(clicked.isError).toBeFalsy()
    expect(textOf(clicked)).toContain('- text: trusted click')
    expect(await json('browser_get_text', { tabId: tab.tabId, selector: '#trust' })).toMatchObject({
      text: 'trusted click',
    })
  })

  it('a snapshot at the largest budget the schema allows is cut by that budget with its cursor, never again by the daemon', async () => {
    const { tools } = await mcp.client.listTools()
    const budget = (
      tools.find((t) => t.name === 'browser_snapshot')!.inputSchema.properties as Record<
        string,
        { maximum?: number }
      >
    ).maxLength!.maximum!
    expect(budget).toBe(102_400)
    const tab = await json<{ tabId: number }>('browser_open_tab', { url: site.url('/big') })
    const text = textOf(await call('browser_snapshot', { tabId: tab.tabId, maxLength: budget }))
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(budget)
    expect(Buffer.byteLength(text)).toBeGreaterThan(budget - 300)
    expect(text.split('\n').at(-1)).toMatch(
      /^\[cut at maxLength \(102400 bytes\): lines 1-\d+ of more than \d+; the rest: browser_snapshot with cursor: \d+;/,
    )
    expect(text).not.toContain('[truncated: the result was')
  })

  it('returns screenshots as MCP image content', async () => {
    const result = await call('browser_screenshot', {})
    expect(result.isError).toBeFalsy()
    expect(result.content[0]).toMatchObject({ type: 'image', mimeType: 'image/png' })
    const image = result.content[0] as { data: string }
    expect(Buffer.from(image.data, 'base64').subarray(1, 4).toString('latin1')).toBe('PNG')
  })

  it('reports progress of a long wait to a client that asked for it', async () => {
    const progress: { progress: number; total?: number; message?: string }[] = []
    const result = (await mcp.client.callTool(
      { name: 'browser_wait_for', arguments: { timeoutMs: 4_500 } },
      CallToolResultSchema,
      {
        onprogress: (p) => progress.push(p),
      },
    )) as CallToolResult
    expect(result.isError).toBeFalsy()
    expect(progress.length).toBeGreaterThanOrEqual(2)
    expect(progress[0]).toMatchObject({ total: 4_500, message: 'waiting' })
  })

  it('rejects invalid input before it reaches the browser, and relays tool errors with their code', async () => {
    const invalid = await call('browser_navigate', { url: 'javascript:alert(1)' })
    expect(invalid.isError).toBe(true)
    expect(textOf(invalid)).toMatch(/^\[invalid_input\] /)
    const missing = await call('browser_get_text', { selector: '#absent' })
    expect(missing.isError).toBe(true)
    expect(textOf(missing)).toBe('[tool_error] no element matches the selector #absent')
    const off = await call('browser_get_cookies', {})
    expect(off.isError).toBe(true)
    expect(textOf(off)).toMatch(/^\[permission_off\] /)
  })

  it('audits built-in calls under the browser plugin, with error code and category on failures', async () => {
    const res = await daemon.fetch('/audit?plugin=browser&success=false&limit=10')
    const entries = (await res.json()) as {
      tool: string
      plugin: string
      success: boolean
      error?: { code: string; category?: string }
    }[]
    const failure = entries.find((e) => e.tool === 'browser_get_text')
    expect(failure).toMatchObject({
      plugin: 'browser',
      success: false,
      error: { code: 'tool_error', category: 'not_found' },
    })
    expect(entries.find((e) => e.tool === 'browser_get_cookies')?.error?.code).toBe('permission_off')
  })

  it('extension_get_state reports the extension version and its live connection', async () => {
    const state = await json<{ version: string; extension?: { connection?: { status?: string } } }>(
      'extension_get_state',
    )
    expect(state.version).toBe('0.1.0')
    expect(state.extension?.connection?.status).toBe('connected')
  })

  it('returns structured results that the SDK client checks against the listed output schemas', async () => {
    // listTools gives the client the schemas it checks every later result of these tools against.
    const { tools } = await mcp.client.listTools()
    const schemas = new Map(tools.map((tool) => [tool.name, tool.outputSchema]))
    const validator = new AjvJsonSchemaValidator()
    const structured = async <T>(name: string, args: Record<string, unknown> = {}): Promise<T> => {
      const result = await call(name, args)
      if (result.isError) throw new Error(`${name}: ${textOf(result)}`)
      const schema = schemas.get(name)
      expect(schema, name).toMatchObject({ type: 'object' })
      expect(result.structuredContent, name).toEqual(JSON.parse(textOf(result)))
      expect(validator.getValidator(schema!)(result.structuredContent), name).toMatchObject({ valid: true })
      return result.structuredContent as T
    }
    const tab = await structured<{ tabId: number; url: string }>('browser_open_tab', {
      url: site.url('/form'),
    })
    expect(tab.url).toBe(site.url('/form'))
    const { tabs } = await structured<{ tabs: { tabId: number }[] }>('browser_list_tabs', {
      urlContains: '/form',
    })
    expect(tabs.map((t) => t.tabId)).toContain(tab.tabId)
    await structured('browser_wait_for', { tabId: tab.tabId, selector: '#save' })
    const found = await structured<{ total: number }>('browser_find', {
      tabId: tab.tabId,
      text: 'Save draft',
    })
    expect(found.total).toBeGreaterThan(0)
    const inputs = await structured<{ elements: { attributes?: Record<string, string | null> }[] }>(
      'browser_query',
      { tabId: tab.tabId, selector: 'input', attributes: ['name'] },
    )
    expect(inputs.elements[0]?.attributes).toEqual({ name: 'email' })
    expect(await structured('browser_hover', { tabId: tab.tabId, selector: '#hover-target' })).toEqual({
      hovered: expect.stringMatching(/hover-target|Hover me/) as unknown,
    })
    await structured('browser_scroll', { tabId: tab.tabId, direction: 'down' })
    await structured('extension_get_state')
    // A text result stays text: no schema listed, no structuredContent.
    expect(schemas.get('browser_snapshot')).toBeUndefined()
    expect((await call('browser_snapshot', { tabId: tab.tabId })).structuredContent).toBeUndefined()
  })

  // Last: the side panel opens as a tab, which becomes the active one.
  it('asks in the side panel before an ask-mode built-in tool runs: deny, then allow once', async () => {
    const tab = await json<{ tabId: number }>('browser_open_tab', { url: site.url('/') })
    const panel = await browser.openSidePanel()
    const denied = call('browser_close_tab', { tabId: tab.tabId })
    const card = panel.locator('[data-approval-id]')
    await card.waitFor()
    // What the user is asked to approve: the tool and its arguments.
    expect(await card.textContent()).toContain('browser_close_tab')
    expect(await card.textContent()).toContain(String(tab.tabId))
    await card.getByTestId('deny').click()
    const deniedResult = await denied
    expect(deniedResult.isError).toBe(true)
    expect(textOf(deniedResult)).toMatch(/^\[approval_denied\] /)
    expect(
      (await json<{ tabs: { tabId: number }[] }>('browser_list_tabs')).tabs.map((t) => t.tabId),
    ).toContain(tab.tabId)

    const allowed = call('browser_close_tab', { tabId: tab.tabId })
    await card.waitFor()
    expect(await card.textContent()).toContain('browser_close_tab')
    await card.getByTestId('approve-once').click()
    expect(JSON.parse(textOf(await allowed))).toEqual({ closed: tab.tabId })
    expect(
      (await json<{ tabs: { tabId: number }[] }>('browser_list_tabs')).tabs.map((t) => t.tabId),
    ).not.toContain(tab.tabId)
  })
})
