/**
 * Tools that declare an output schema: tools/list carries it as MCP `outputSchema`, a result carries
 * the output as `structuredContent` beside its text (for clients that read only text), checked against
 * the schema before it leaves the daemon. An output that breaks its schema never reaches the agent: the
 * call fails with invalid_output, audited so. Both SDK clients (v1 session, v2 stateless) validate what
 * they receive against the listed schema themselves.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FakeExtension, READY } from '../../helpers/fakeExtension'
import { connectMcp, textOf, type McpConnection } from '../../helpers/mcpClient'
import { connectMcpV2, type McpV2Connection } from '../../helpers/mcpClientV2'
import { auditEntries, startFixture, type Fixture } from '../toolcall/fixture'

const NOTE = {
  type: 'object',
  required: ['id', 'title'],
  properties: { id: { type: 'integer' }, title: { type: 'string' } },
  additionalProperties: false,
}

describe('structured tool output', () => {
  let fx: Fixture
  let ext: FakeExtension
  let v1: McpConnection
  let v2: McpV2Connection

  beforeAll(async () => {
    fx = await startFixture('node', {
      plugins: [
        {
          name: 'notes',
          tools: [
            { name: 'get_note', outputSchema: NOTE },
            { name: 'count_notes', outputSchema: { type: 'integer' } },
            { name: 'list_notes' },
          ],
        },
      ],
      permissions: { notes: { permission: 'auto' } },
    })
    ext = await FakeExtension.connect(fx.daemon, { tabs: { notes: READY } })
    v1 = await connectMcp(fx.daemon)
    v2 = await connectMcpV2(fx.daemon, fx.daemon.secret)
  }, 60_000)
  afterAll(async () => {
    await v1?.close()
    await v2?.close()
    await ext?.close()
    await fx?.stop()
  })

  it('lists an object output schema as outputSchema, and none for other tools', async () => {
    const { tools } = await v1.client.listTools()
    const byName = new Map(tools.map((tool) => [tool.name, tool]))
    expect(byName.get('notes_get_note')?.outputSchema).toEqual(NOTE)
    // MCP output schemas describe objects: a scalar output stays text, still checked.
    expect(byName.get('notes_count_notes')?.outputSchema).toBeUndefined()
    expect(byName.get('notes_list_notes')?.outputSchema).toBeUndefined()
  })

  it.each(['v1', 'v2'] as const)(
    'gives the %s client structuredContent and the same as text',
    async (which) => {
      const client = which === 'v1' ? v1.client : v2.client
      await client.listTools()
      const pending = client.callTool({ name: 'notes_get_note', arguments: {} })
      ;(await ext.nextDispatch()).succeed({ id: 7, title: 'Groceries' })
      const result = await pending
      expect(result.isError).toBeFalsy()
      expect(result.structuredContent).toEqual({ id: 7, title: 'Groceries' })
      expect(textOf(result)).toBe('{"id":7,"title":"Groceries"}')
    },
  )

  it('refuses an output that breaks its schema with invalid_output, and audits it so', async () => {
    const pending = v1.client.callTool({ name: 'notes_get_note', arguments: {} })
    ;(await ext.nextDispatch()).succeed({ id: 'seven', title: 'Groceries', secretField: 'x' })
    const result = await pending
    expect(result.isError).toBe(true)
    expect(result.structuredContent).toBeUndefined()
    expect(textOf(result)).toMatch(/^\[invalid_output\] the tool's output does not match its output schema: /)
    expect(textOf(result)).not.toContain('Groceries')
    const [entry] = (await auditEntries(fx.daemon)).filter((e) => e.tool === 'notes_get_note')
    expect(entry).toMatchObject({ success: false, error: { code: 'invalid_output', category: 'validation' } })

    const scalar = v1.client.callTool({ name: 'notes_count_notes', arguments: {} })
    ;(await ext.nextDispatch()).succeed('many')
    expect(textOf(await scalar)).toMatch(/^\[invalid_output\]/)
  })

  it('passes a scalar output that matches as text only', async () => {
    const pending = v1.client.callTool({ name: 'notes_count_notes', arguments: {} })
    ;(await ext.nextDispatch()).succeed(3)
    const result = await pending
    expect(result.structuredContent).toBeUndefined()
    expect(textOf(result)).toBe('3')
  })
})
