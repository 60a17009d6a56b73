/**
 * `bridge config` against a running daemon: a `set` takes effect at once (POST /reload), a later
 * side-panel change does not undo it, and `rotate-secret` makes the daemon refuse the old secret.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startDaemon, type RunningDaemon } from '../../helpers/daemon'
import { FakeExtension } from '../../helpers/fakeExtension'
import { writePlugin } from '../toolcall/fixture'
import { runCli } from './runCli'

interface Health {
  disabledBrowserTools: string[]
  plugins: number
  pluginDetails: { name: string; source: string; tools: string[] }[]
}
const onDisk = (dir: string) =>
  JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as {
    permissions: Record<string, { tools?: Record<string, string> }>
  }

describe('bridge config with a running daemon', () => {
  let daemon: RunningDaemon
  let ext: FakeExtension | undefined
  beforeAll(async () => {
    daemon = await startDaemon()
  })
  afterAll(async () => {
    await ext?.close()
    await daemon?.stop()
  })
  const cli = (args: string[]) => runCli(args, daemon.configDir, { BRIDGE_PORT: String(daemon.port) })
  const health = async (secret = daemon.secret) =>
    (await (
      await daemon.fetch('/health', { headers: { authorization: `Bearer ${secret}` } })
    ).json()) as Health

  it('set tool-permission takes effect in the daemon at once', async () => {
    expect((await health()).disabledBrowserTools).toContain('browser_navigate')
    const result = await cli(['config', 'set', 'tool-permission.browser.browser_navigate', 'ask'])
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('the running daemon re-read config.json')
    expect((await health()).disabledBrowserTools).not.toContain('browser_navigate')
    expect(onDisk(daemon.configDir).permissions.browser?.tools?.browser_navigate).toBe('ask')
  })

  it('localPlugins.add loads the plugin in the running daemon; remove unloads it', async () => {
    const dir = writePlugin(daemon.configDir, { name: 'notes', tools: [{ name: 'list_notes' }] })
    const added = await cli(['config', 'set', 'localPlugins.add', dir])
    expect(added.code).toBe(0)
    expect(added.stdout).toContain('the running daemon re-read config.json')
    const loaded = await health()
    expect(loaded.plugins).toBe(1)
    expect(loaded.pluginDetails[0]).toMatchObject({
      name: 'notes',
      source: 'local',
      tools: ['notes_list_notes'],
    })
    const permission = await cli(['config', 'set', 'tool-permission.notes.nope', 'auto'])
    expect(permission.code).toBe(1)
    expect(permission.stderr).toContain('notes has no tool "nope" (tools: list_notes)')
    const removed = await cli(['config', 'set', 'localPlugins.remove', dir])
    expect(removed.code).toBe(0)
    expect((await health()).plugins).toBe(0)
  })

  it('checks the tool name against the tools the daemon has', async () => {
    const result = await cli(['config', 'set', 'tool-permission.browser.browser_nope', 'ask'])
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/browser has no tool "browser_nope" \(tools: .*browser_navigate/)
  })

  it('a side-panel change after an outside edit of config.json keeps that edit', async () => {
    // What `bridge config set` writes before its reload reaches the daemon.
    const file = join(daemon.configDir, 'config.json')
    const config = onDisk(daemon.configDir)
    config.permissions.browser = { tools: { ...config.permissions.browser?.tools, browser_reload: 'auto' } }
    writeFileSync(file, JSON.stringify(config))
    ext = await FakeExtension.connect(daemon)
    const answer = await ext.request('config.setToolPermission', {
      plugin: 'browser',
      tool: 'browser_go_back',
      permission: 'auto',
    })
    expect(answer.result).toEqual({ ok: true })
    expect(onDisk(daemon.configDir).permissions.browser?.tools).toEqual({
      browser_navigate: 'ask',
      browser_reload: 'auto',
      browser_go_back: 'auto',
    })
    await ext.close()
    ext = undefined
  })

  it('rotate-secret: the daemon refuses the old secret (401) and accepts the new one', async () => {
    const old = daemon.secret
    const result = await cli(['config', 'rotate-secret', '--confirm'])
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('the running daemon now accepts only the new secret')
    expect(result.stdout).toContain('MCP clients keep their own tokens')
    const { secret } = JSON.parse(readFileSync(join(daemon.configDir, 'extension/auth.json'), 'utf8')) as {
      secret: string
    }
    expect(secret).not.toBe(old)
    expect(result.stdout).not.toContain(secret)
    expect(result.stdout).not.toContain(old)
    const withOld = await daemon.fetch('/ws-info', { headers: { authorization: `Bearer ${old}` } })
    expect(withOld.status).toBe(401)
    const withNew = await daemon.fetch('/ws-info', { headers: { authorization: `Bearer ${secret}` } })
    expect(withNew.status).toBe(200)
    expect(await (await daemon.fetch('/health', { auth: false })).json()).toEqual({ status: 'ok' })
    const status = await cli(['status'])
    expect(status.code).toBe(0)
    expect(status.stdout).toMatch(/bridge \S+ running on/)
  })
})
