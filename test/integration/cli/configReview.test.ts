/**
 * An updated plugin stays off until its new version is reviewed; `bridge config set` with ask or auto
 * is such a review: it records the version the running daemon has loaded, or without a daemon, the
 * version discovery finds.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildFixturePlugin, type BuiltPlugin } from '../../e2e/support/fixturePlugin'
import { tempConfigDir } from '../../helpers/daemon'
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
    // The review binds the loaded build: its package, version and adapter hash.
    const health = (await (await fx.daemon.fetch('/health')).json()) as {
      pluginDetails: { adapterHash: string; path: string }[]
    }
    expect(permissionsOnDisk(fx.configDir)).toEqual({
      notes: {
        permission: 'ask',
        reviewedVersion: '2.0.0',
        reviewedPackage: 'bridge-plugin-notes',
        reviewedAdapterHash: health.pluginDetails[0]?.adapterHash,
        // A local plugin: its folder, where the author's rebuilds keep the review.
        reviewedPath: health.pluginDetails[0]?.path,
      },
    })
    expect(health.pluginDetails[0]?.adapterHash).toMatch(/^[0-9a-f]{64}$/)
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

describe('bridge config set after a plugin update, with no daemon running', () => {
  let configDir: string
  let plugin: BuiltPlugin

  beforeAll(async () => {
    configDir = tempConfigDir()
    plugin = await buildFixturePlugin({ configDir })
    const file = join(configDir, 'config.json')
    const config = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>
    writeFileSync(
      file,
      JSON.stringify({
        ...config,
        permissions: { notes: { permission: 'auto', reviewedVersion: '0.0.1' } },
      }),
      { mode: 0o600 },
    )
  })
  afterAll(() => {
    plugin?.remove()
    if (configDir) rmSync(configDir, { recursive: true, force: true })
  })

  it('records the build discovery finds as reviewed', async () => {
    const result = await runCli(['config', 'set', 'plugin-permission.notes', 'ask'], configDir)
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    const reviewed = {
      reviewedVersion: '0.1.0',
      reviewedPackage: 'bridge-plugin-notes',
      reviewedAdapterHash: plugin.state().adapterHash,
      reviewedPath: plugin.dir,
    }
    expect(permissionsOnDisk(configDir)).toEqual({ notes: { permission: 'ask', ...reviewed } })
    const tool = await runCli(['config', 'set', 'tool-permission.notes.whoami', 'auto'], configDir)
    expect(tool.code).toBe(0)
    expect(permissionsOnDisk(configDir)).toEqual({
      notes: { permission: 'ask', ...reviewed, tools: { whoami: 'auto' } },
    })
  })
})
