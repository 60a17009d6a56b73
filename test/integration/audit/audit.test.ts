import { existsSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ENGINES, startDaemon } from '../../helpers/daemon'
import { FakeExtension } from '../../helpers/fakeExtension'
import { connectMcp, type McpConnection } from '../../helpers/mcpClient'
import { auditEntries, startFixture, type AuditEntryBody, type Fixture } from '../toolcall/fixture'

const permissions = { browser: { tools: { browser_list_tabs: 'auto', browser_navigate: 'auto' } } }
const fileEntries = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as AuditEntryBody)

describe.each(ENGINES)('audit (%s engine)', (engine) => {
  let fx: Fixture
  let mcp: McpConnection

  beforeAll(async () => {
    // A small rotation size so a handful of calls rotate the disk log.
    fx = await startFixture(engine, { permissions }, { BRIDGE_AUDIT_ROTATE_BYTES: '1000' })
    mcp = await connectMcp(fx.daemon)
    const ext = await FakeExtension.connect(fx.daemon, { autoAnswer: () => ({ tabs: [] }) })
    for (let i = 0; i < 6; i++) await mcp.client.callTool({ name: 'browser_list_tabs', arguments: {} })
    await mcp.client.callTool({ name: 'browser_navigate', arguments: { url: 'not a url' } })
    await mcp.client.callTool({ name: 'browser_close_tab', arguments: { tabId: 1 } })
    await ext.close()
  })
  afterAll(async () => {
    await mcp?.close()
    await fx?.stop()
  })

  it('returns entries newest first with the spec fields', async () => {
    const entries = await auditEntries(fx.daemon, '')
    expect(entries).toHaveLength(8)
    expect(entries[0]).toEqual({
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      tool: 'browser_close_tab',
      plugin: 'browser',
      client: 'cli',
      success: false,
      durationMs: expect.any(Number),
      error: {
        code: 'permission_off',
        message: 'this tool is off; enable it in the bridge side panel or with `bridge config set`',
        category: 'permission',
      },
    })
    expect(entries[1]?.error).toMatchObject({ code: 'invalid_input', category: 'validation' })
    expect(entries[2]).not.toHaveProperty('error')
    const times = entries.map((e) => Date.parse(e.timestamp))
    expect([...times].sort((a, b) => b - a)).toEqual(times)
  })

  it('filters by plugin, tool and success, and honours limit', async () => {
    expect(await auditEntries(fx.daemon, 'success=false')).toHaveLength(2)
    expect(await auditEntries(fx.daemon, 'tool=browser_list_tabs&success=true')).toHaveLength(6)
    expect(await auditEntries(fx.daemon, 'plugin=browser&limit=3')).toHaveLength(3)
    expect(await auditEntries(fx.daemon, 'plugin=notes')).toEqual([])
  })

  it('answers a limit outside 1-500 with 400 and a clear message', async () => {
    for (const limit of ['0', '501', 'ten']) {
      const res = await fx.daemon.fetch(`/audit?limit=${limit}`)
      expect(res.status).toBe(400)
      expect(await res.json()).toEqual({
        error: { code: 'bad_request', message: 'limit must be an integer from 1 to 500' },
      })
    }
    expect((await fx.daemon.fetch('/audit', { auth: false })).status).toBe(401)
  })

  it('writes every entry to audit.log (0600) as NDJSON, rotating into audit.log.1', async () => {
    const log = join(fx.configDir, 'audit.log')
    const rotated = join(fx.configDir, 'audit.log.1')
    expect(statSync(log).mode & 0o777).toBe(0o600)
    expect(existsSync(rotated)).toBe(true)
    expect(statSync(log).size).toBeLessThanOrEqual(1000)
    const onDisk = [...fileEntries(rotated), ...fileEntries(log)]
    const inMemory = (await auditEntries(fx.daemon)).reverse()
    // The rotated file plus the live one end with exactly what the daemon recorded.
    expect(onDisk.slice(-inMemory.length)).toEqual(inMemory)
  })

  it('reports the audit summary in health', async () => {
    const health = (await (await fx.daemon.fetch('/health')).json()) as { auditSummary: unknown }
    expect(health.auditSummary).toEqual({
      totalInvocations: 8,
      successCount: 6,
      failureCount: 2,
      last24h: { total: 8, success: 6, failure: 2 },
      avgDurationMs: expect.any(Number),
    })
  })
})

describe('audit across a restart', () => {
  it('keeps the disk log and starts the memory buffer empty; earlier=1 adds the earlier runs (the side panel asks so)', async () => {
    const fx = await startFixture('node', { permissions })
    try {
      const mcp = await connectMcp(fx.daemon)
      await mcp.client.callTool({ name: 'browser_close_tab', arguments: { tabId: 1 } })
      await mcp.close()
      await fx.daemon.stop()
      const again = await startDaemon({ configDir: fx.configDir, engine: 'node' })
      try {
        expect(await auditEntries(again)).toEqual([])
        expect(fileEntries(join(fx.configDir, 'audit.log')).map((e) => e.tool)).toEqual(['browser_close_tab'])
        const withEarlier = await auditEntries(again, 'earlier=1')
        expect(withEarlier).toEqual(fileEntries(join(fx.configDir, 'audit.log')))
        expect(withEarlier).toMatchObject([{ tool: 'browser_close_tab', plugin: 'browser' }])
        expect((await again.fetch('/audit?earlier=yes')).status).toBe(400)
      } finally {
        await again.stop()
      }
    } finally {
      await fx.stop()
    }
  })
})
