/**
 * `bridge mcp`, spawned the way Claude Desktop spawns it (the config `bridge client add --for
 * claude-desktop` writes), driven by the MCP SDK's own StdioClientTransport: it lists and calls tools
 * through the daemon with a client token from BRIDGE_CLIENT_TOKEN, relays progress, logging and
 * tools/list_changed, and puts nothing but protocol on stdout. With the secret absent from its
 * environment, the relay holds no credential but the client's.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import {
  LoggingMessageNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CLI_JS, ROOT, daemonEnv } from '../helpers/daemon'
import { FakeExtension, READY } from '../helpers/fakeExtension'
import { textOf } from '../helpers/mcpClient'
import { startFixture, type Fixture } from '../integration/toolcall/fixture'

describe('bridge mcp (stdio relay)', () => {
  let fx: Fixture
  let ext: FakeExtension
  let client: Client
  let transport: StdioClientTransport
  let stderr = ''
  const logs: unknown[] = []
  let listChanged = 0

  beforeAll(async () => {
    fx = await startFixture('node', {
      plugins: [{ name: 'notes', tools: [{ name: 'list_notes' }, { name: 'add_note' }] }],
      permissions: { notes: { permission: 'auto', tools: { add_note: 'off' } } },
    })
    ext = await FakeExtension.connect(fx.daemon, { tabs: { notes: READY } })
    const token = (
      JSON.parse(readFileSync(join(fx.configDir, 'clients.json'), 'utf8')) as { clients: { token: string }[] }
    ).clients[0]!.token
    const env = daemonEnv(fx.configDir, 'node', {
      PORT: undefined,
      BRIDGE_CONFIG_DIR: undefined,
      BRIDGE_CLIENT_TOKEN: token,
      BRIDGE_PORT: String(fx.daemon.port),
    })
    transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI_JS, 'mcp'],
      env: env as Record<string, string>,
      cwd: ROOT,
      stderr: 'pipe',
    })
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')))
    client = new Client({ name: 'desktop-like', version: '1.0.0' })
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params))
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void listChanged++)
    await client.connect(transport)
  })
  afterAll(async () => {
    await client?.close()
    await ext?.close()
    await fx?.stop()
  })

  it('lists the tools the daemon lists', async () => {
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name)).toContain('notes_list_notes')
    expect(tools.map((t) => t.name)).not.toContain('notes_add_note')
  })

  it('calls a tool through the daemon and the extension, with progress and logging relayed', async () => {
    const progress: unknown[] = []
    const call = client.callTool({ name: 'notes_list_notes', arguments: {} }, undefined, {
      onprogress: (p) => void progress.push(p),
    })
    const dispatch = await ext.nextDispatch()
    expect(dispatch.params).toMatchObject({ plugin: 'notes', tool: 'list_notes' })
    dispatch.progress(1, 2, 'half way')
    ext.notify('plugin.log', {
      entries: [
        {
          plugin: 'notes',
          dispatchId: dispatch.params.dispatchId,
          level: 'info',
          message: 'listing notes',
          ts: Date.now(),
        },
      ],
    })
    await expect.poll(() => progress.length).toBeGreaterThan(0)
    await expect.poll(() => logs.length).toBeGreaterThan(0)
    dispatch.succeed({ notes: ['one'] })
    const result = await call
    expect(JSON.parse(textOf(result))).toEqual({ notes: ['one'] })
    expect(progress[0]).toMatchObject({ progress: 1, total: 2, message: 'half way' })
    expect(logs[0]).toMatchObject({ level: 'info', logger: 'plugin:notes' })
  })

  it('relays tools/list_changed when a permission changes', async () => {
    const before = listChanged
    const answer = await ext.request('config.setToolPermission', {
      plugin: 'notes',
      tool: 'add_note',
      permission: 'auto',
    })
    expect(answer.error).toBeUndefined()
    await expect.poll(() => listChanged, { timeout: 10_000 }).toBeGreaterThan(before)
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('notes_add_note')
  })

  it('wrote nothing but diagnostics (none here) to stderr', () => {
    expect(stderr).toBe('')
  })

  it('with a token the daemon does not know: the client gets an error at once, never a hang', async () => {
    const env = daemonEnv(fx.configDir, 'node', {
      PORT: undefined,
      BRIDGE_CONFIG_DIR: undefined,
      BRIDGE_CLIENT_TOKEN: 'f'.repeat(64),
      BRIDGE_PORT: String(fx.daemon.port),
    })
    const stranger = new StdioClientTransport({
      command: process.execPath,
      args: [CLI_JS, 'mcp'],
      env: env as Record<string, string>,
      cwd: ROOT,
      stderr: 'pipe',
    })
    let diagnostics = ''
    stranger.stderr?.on('data', (chunk: Buffer) => (diagnostics += chunk.toString('utf8')))
    const refused = new Client({ name: 'stranger', version: '1.0.0' })
    const error = await refused.connect(stranger).then(
      () => null,
      (e: unknown) => e,
    )
    expect(String(error)).toContain('refused BRIDGE_CLIENT_TOKEN (HTTP 401)')
    expect(diagnostics).toContain('refused BRIDGE_CLIENT_TOKEN')
    expect(diagnostics).not.toContain('f'.repeat(64))
    await refused.close()
  })
})
