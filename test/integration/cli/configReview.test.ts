/**
 * An updated plugin stays off until its new version is reviewed; `bridge config set` with ask or auto
 * is such a review when a daemon runs: it records the version the daemon has loaded.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connectMcp, type McpConnection } from '../../helpers/mcpClient'
import { startFixture, type Fixture } from '../toolcall/fixture'
import { runCli } from './runCli'

const permissionsOnDisk = (dir: string) =>
  (JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as { permissions: Record<string, unknown> })
    .permissions

describe('bridge config set after a plugin update', () => {
  let fx: Fixture
  let mcp: McpConnection
  const toolNames = async () => (await mcp.client.listTools()).tools.map((t) => t.name)

  beforeAll(async () => {
    fx = await startFixture('node', {
      plugins: [{ name: 'notes', version: '2.0.0', tools: [{ name: 'list_notes' }] }],
      permissions: { notes: { permission: 'auto', reviewedVersion: '1.0.0' } },
    })
    mcp = await connectMcp(fx.daemon)
  })
  afterAll(async () => {
    await mcp?.close()
    await fx?.stop()
  })

  it('records the loaded version as reviewed, which turns the tools back on', async () => {
    expect(await toolNames()).not.toContain('notes_list_notes')
    const changed = mcp.nextListChanged()
    const result = await runCli(
      ['config', 'set', 'plugin-permission.notes', 'ask', '--port', String(fx.daemon.port)],
      fx.configDir,
    )
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    expect(permissionsOnDisk(fx.configDir)).toEqual({
      notes: { permission: 'ask', reviewedVersion: '2.0.0' },
    })
    await changed
    const listed = (await mcp.client.listTools()).tools.find((t) => t.name === 'notes_list_notes')
    expect(listed?.description).toMatch(/^\[asks for approval\] /)
  })

  it('reports the installed version of each plugin in /health', async () => {
    const health = (await (await fx.daemon.fetch('/health')).json()) as {
      pluginDetails: { name: string; version: string }[]
    }
    expect(health.pluginDetails).toEqual([expect.objectContaining({ name: 'notes', version: '2.0.0' })])
  })
})
