/**
 * Built-in tools whose result is one JSON object list its shape as `outputSchema` and send the result
 * as `structuredContent` beside the same JSON as text, on both revisions; the daemon checks the
 * extension's answer against the schema first, so a wrong shape is an error result, never data. The
 * SDK v1 client checks what it receives against the listed schema itself (its validator is recorded
 * here to show it did); the v2 client speaks the stateless revision.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv'
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BROWSER_TOOLS } from '../../../src/tools'
import { FakeExtension } from '../../helpers/fakeExtension'
import { rawTextOf, textOf } from '../../helpers/mcpClient'
import { connectMcpV2, type McpV2Connection } from '../../helpers/mcpClientV2'
import { auditEntries, startFixture, type Fixture } from '../toolcall/fixture'

const TABS = {
  tabs: [
    {
      tabId: 12,
      windowId: 3,
      url: 'https://mail.example/inbox',
      title: 'Inbox (3)',
      active: true,
      status: 'complete',
      focusedWindow: true,
    },
  ],
}
const schemaOf = (name: string) => BROWSER_TOOLS.find((tool) => tool.name === name)?.outputSchema

/** The SDK's own validator, with a record of every check it made. */
function recordingValidator(checked: { schema: unknown; valid: boolean }[]): jsonSchemaValidator {
  const ajv = new AjvJsonSchemaValidator()
  return {
    getValidator<T>(schema: Parameters<jsonSchemaValidator['getValidator']>[0]) {
      const check = ajv.getValidator<T>(schema)
      return (input: unknown) => {
        const result = check(input)
        checked.push({ schema, valid: result.valid })
        return result
      }
    },
  }
}

describe('structured output of built-in tools', () => {
  let fx: Fixture
  let ext: FakeExtension
  let v1: Client
  let v2: McpV2Connection
  const checked: { schema: unknown; valid: boolean }[] = []

  beforeAll(async () => {
    fx = await startFixture('node', { permissions: { browser: { permission: 'auto' } } })
    ext = await FakeExtension.connect(fx.daemon)
    v1 = new Client(
      { name: 'v1-structured', version: '1.0.0' },
      { jsonSchemaValidator: recordingValidator(checked) },
    )
    await v1.connect(
      new StreamableHTTPClientTransport(new URL(`${fx.daemon.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${fx.daemon.secret}` } },
      }),
    )
    v2 = await connectMcpV2(fx.daemon, fx.daemon.secret)
  }, 60_000)
  afterAll(async () => {
    await v1?.close()
    await v2?.close()
    await ext?.close()
    await fx?.stop()
  })

  it.each(['v1', 'v2'] as const)(
    'lists the output schema of a structured built-in to the %s client, and none for a text one',
    async (which) => {
      const { tools } = await (which === 'v1' ? v1 : v2.client).listTools()
      const byName = new Map(tools.map((tool) => [tool.name, tool]))
      expect(schemaOf('browser_list_tabs')).toBeDefined()
      expect(byName.get('browser_list_tabs')?.outputSchema).toEqual(schemaOf('browser_list_tabs'))
      expect(byName.get('browser_close_tab')?.outputSchema).toEqual({
        type: 'object',
        required: ['closed'],
        properties: { closed: { type: 'integer' } },
      })
      expect(byName.get('browser_snapshot')).toBeDefined()
      expect(byName.get('browser_snapshot')?.outputSchema).toBeUndefined()
    },
  )

  it('gives the v1 client structuredContent, which the client checks against the listed schema', async () => {
    await v1.listTools()
    checked.length = 0
    const pending = v1.callTool({ name: 'browser_list_tabs', arguments: {} })
    const dispatch = await ext.nextDispatch()
    expect(dispatch.params).toMatchObject({ plugin: 'browser', tool: 'browser_list_tabs' })
    dispatch.succeed(TABS)
    const result = await pending
    expect(result.isError).toBeFalsy()
    expect(result.structuredContent).toEqual(TABS)
    // The same JSON as text for clients that read only text, marked as the page's words.
    expect(textOf(result)).toBe(JSON.stringify(TABS))
    expect(rawTextOf(result)).not.toBe(textOf(result))
    expect(checked).toEqual([{ schema: schemaOf('browser_list_tabs'), valid: true }])
  })

  it('gives the v2 client the same structuredContent', async () => {
    await v2.client.listTools()
    const pending = v2.client.callTool({ name: 'browser_list_tabs', arguments: {} })
    ;(await ext.nextDispatch()).succeed(TABS)
    const result = await pending
    expect(result.isError).toBeFalsy()
    expect(result.structuredContent).toEqual(TABS)
    expect(textOf(result)).toBe(JSON.stringify(TABS))
  })

  it.each(['v1', 'v2'] as const)(
    'turns a wrong-shaped answer from the extension into an invalid_output error for the %s client',
    async (which) => {
      const client = which === 'v1' ? v1 : v2.client
      await client.listTools()
      const pending = client.callTool({ name: 'browser_list_tabs', arguments: {} })
      ;(await ext.nextDispatch()).succeed({ tabs: [{ ...TABS.tabs[0], tabId: 'twelve' }] })
      const result = await pending
      expect(result.isError).toBe(true)
      expect(result.structuredContent).toBeUndefined()
      expect(textOf(result)).toBe(
        "[invalid_output] the tool's output does not match its output schema: tabs.0.tabId must be integer",
      )
      expect(textOf(result)).not.toContain('Inbox')
    },
  )

  it('refuses text where a structured result was declared, and audits it so', async () => {
    const pending = v1.callTool({ name: 'browser_close_tab', arguments: { tabId: 12 } })
    ;(await ext.nextDispatch()).succeed('closed')
    const result = await pending
    expect(textOf(result)).toMatch(/^\[invalid_output\] the tool's output does not match its output schema: /)
    const [entry] = (await auditEntries(fx.daemon)).filter((e) => e.tool === 'browser_close_tab')
    expect(entry).toMatchObject({ success: false, error: { code: 'invalid_output', category: 'validation' } })
  })

  it('keeps a text built-in as text only', async () => {
    const pending = v1.callTool({ name: 'browser_snapshot', arguments: {} })
    ;(await ext.nextDispatch()).succeed('URL: https://mail.example/inbox\nTitle: Inbox\n- heading "Inbox"')
    const result = await pending
    expect(result.structuredContent).toBeUndefined()
    expect(textOf(result)).toBe('URL: https://mail.example/inbox\nTitle: Inbox\n- heading "Inbox"')
  })
})
