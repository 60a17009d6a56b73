/**
 * `bridge doctor` against a daemon started by `bridge start` (extension files installed) with a
 * temp HOME holding MCP client configs: all checks pass; warnings alone exit 0; errors exit 1.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startDaemon, tempConfigDir, type RunningDaemon } from '../../helpers/daemon'
import { FakeExtension } from '../../helpers/fakeExtension'
import { connectMcp } from '../../helpers/mcpClient'
import { runCli } from './runCli'

const defaultToken = (configDir: string): string =>
  (JSON.parse(readFileSync(join(configDir, 'clients.json'), 'utf8')) as { clients: { token: string }[] })
    .clients[0]!.token

const clientConfig = (port: number, secret: string) =>
  JSON.stringify({
    mcpServers: {
      bridge: {
        type: 'http',
        url: `http://127.0.0.1:${port}/mcp`,
        headers: { Authorization: `Bearer ${secret}` },
      },
    },
  })

describe('bridge doctor', () => {
  let daemon: RunningDaemon
  const dirs: string[] = []
  const fresh = () => {
    const dir = tempConfigDir()
    dirs.push(dir)
    return dir
  }
  beforeAll(async () => {
    daemon = await startDaemon({ via: 'cli', args: ['--port', '0'] })
  })
  afterAll(async () => {
    await daemon?.stop()
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
  })
  const doctor = (home: string, configDir = daemon.configDir, args = ['--port', String(daemon.port)]) =>
    runCli(['doctor', ...args], configDir, { HOME: home, XDG_CONFIG_HOME: undefined, APPDATA: undefined })

  it('says how many tools each MCP client sees: none at first, with the command that turns on the core browser tools', async () => {
    const before = await doctor(fresh())
    expect(before.stdout).toContain(
      '! MCP client "default" sees 0 tools: every tool is off until you turn it on',
    )
    expect(before.stdout).toContain(
      '    turn on the core browser tools with `bridge config set plugin-permission.browser ask` (or in the side panel)',
    )
    // The command as printed (the port is this test daemon's), then the count a client really lists.
    const on = await runCli(
      ['config', 'set', 'plugin-permission.browser', 'ask', '--port', String(daemon.port)],
      daemon.configDir,
    )
    expect(on.code, on.stderr).toBe(0)
    const after = await doctor(fresh())
    const count = /^✓ MCP client "default" sees (\d+) tools$/m.exec(after.stdout)
    expect(count, after.stdout).not.toBeNull()
    const mcp = await connectMcp({ url: daemon.url, secret: defaultToken(daemon.configDir) })
    try {
      expect(Number(count![1])).toBe((await mcp.client.listTools()).tools.length)
    } finally {
      await mcp.close()
    }
  })

  it('passes every check with the extension connected and an MCP client set up', async () => {
    const home = fresh()
    writeFileSync(join(home, '.claude.json'), clientConfig(daemon.port, defaultToken(daemon.configDir)))
    const ext = await FakeExtension.connect(daemon)
    try {
      const result = await doctor(home)
      expect(result.stderr).toBe('')
      expect(result.code).toBe(0)
      const out = result.stdout
      expect(out).toMatch(/^✓ Node\.js \d+\.\d+\.\d+$/m)
      expect(out).toMatch(/^✓ Chromium-based browser: \//m)
      expect(out).toContain(`✓ config file ${join(daemon.configDir, 'config.json')}`)
      expect(out).toContain('✓ auth secret is valid')
      expect(out).toMatch(new RegExp(`^✓ bridge \\S+ answers on http://127\\.0\\.0\\.1:${daemon.port}$`, 'm'))
      expect(out).toContain('✓ extension connected')
      expect(out).toContain(`✓ extension files installed in ${join(daemon.configDir, 'extension')}`)
      expect(out).toMatch(/^✓ extension version \S+ matches the CLI$/m)
      expect(out).toContain(
        `✓ Claude Code: ${join(home, '.claude.json')} is set up for http://127.0.0.1:${daemon.port}/mcp (client "default")`,
      )
      expect(out).toContain('✓ no package plugin failed to load')
      expect(out).not.toMatch(/^[!✗]/m)
      expect(out).toMatch(/\d+ passed, 0 warning\(s\), 0 error\(s\)\n$/)
      expect(out).not.toContain(daemon.secret)
    } finally {
      await ext.close()
    }
  })

  it('warns (exit 0) about a disconnected extension, an outdated client token and a client without bridge', async () => {
    const home = fresh()
    writeFileSync(join(home, '.claude.json'), clientConfig(daemon.port, 'c'.repeat(64)))
    mkdirSync(join(home, '.cursor'))
    writeFileSync(join(home, '.cursor', 'mcp.json'), JSON.stringify({ mcpServers: {} }))
    const result = await doctor(home)
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/^! no bridge extension has asked this daemon since it started \d+ s ago$/m)
    expect(result.stdout).toContain(
      `! Claude Code: ${join(home, '.claude.json')} mentions http://127.0.0.1:${daemon.port}/mcp but no current client token`,
    )
    expect(result.stdout).toContain(`! Cursor: ${join(home, '.cursor', 'mcp.json')} does not mention`)
    expect(result.stdout).toMatch(/ 0 error\(s\)\n$/)
  })

  it('warns (exit 0) when an MCP client configuration holds the auth.json secret, without printing it', async () => {
    const home = fresh()
    writeFileSync(join(home, '.claude.json'), clientConfig(daemon.port, daemon.secret))
    const result = await doctor(home)
    expect(result.code).toBe(0)
    expect(result.stdout).toContain(
      `! Claude Code: ${join(home, '.claude.json')} holds bridge's auth.json secret, which also opens the extension's channel`,
    )
    expect(result.stdout).toContain('bridge client add <name> --for <client>')
    expect(result.stdout + result.stderr).not.toContain(daemon.secret)
  })

  it('fails (exit 1) when no daemon answers and the extension files are missing', async () => {
    const home = fresh()
    const dir = fresh()
    const result = await doctor(home, dir, ['--port', '1'])
    expect(result.code).toBe(1)
    expect(result.stdout).toContain(
      `✗ bridge is not running: nothing answers on http://127.0.0.1:1 and no daemon holds ${dir}\n    start it: \`bridge start --port 1\`\n`,
    )
    expect(result.stdout).toContain(
      `✗ extension files are not installed (${join(dir, 'extension/manifest.json')} is missing)`,
    )
    expect(result.stdout).toContain(`! ${join(dir, 'config.json')} does not exist`)
    expect(result.stdout).toContain('! no MCP client configuration mentions http://127.0.0.1:1/mcp')
    expect(result.stdout).toMatch(/ 2 error\(s\)\n$/)
  })

  it('fails (exit 1) on a broken auth.json, a broken config.json and an unbuilt local plugin', async () => {
    const home = fresh()
    const dir = fresh()
    mkdirSync(join(dir, 'extension'))
    writeFileSync(join(dir, 'extension/auth.json'), '{"secret": "short"}')
    const plugin = join(dir, 'my-plugin')
    mkdirSync(join(plugin, 'dist'), { recursive: true })
    writeFileSync(join(plugin, 'dist/tools.json'), '{}')
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ localPlugins: [plugin, join(dir, 'gone')] }))
    const withPlugins = await doctor(home, dir, ['--port', '1'])
    expect(withPlugins.code).toBe(1)
    expect(withPlugins.stdout).toMatch(
      /^✗ .*auth\.json must hold \{ "secret": "<64 lowercase hex characters>" \}/m,
    )
    expect(withPlugins.stdout).toContain(`✗ local plugin ${plugin} has no dist/adapter.iife.js`)
    expect(withPlugins.stdout).toContain(`✗ local plugin ${join(dir, 'gone')} does not exist`)
    writeFileSync(join(dir, 'config.json'), '{ broken')
    const broken = await doctor(home, dir, ['--port', '1'])
    expect(broken.code).toBe(1)
    expect(broken.stdout).toMatch(/^✗ .*config\.json is not valid JSON/m)
  })
})
