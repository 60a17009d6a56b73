/** `bridge status` (and plain `bridge`) against a real daemon, and when none runs. */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ROOT, startDaemon, tempConfigDir, type RunningDaemon } from '../../helpers/daemon'
import { connectMcp } from '../../helpers/mcpClient'
import { runCli } from './runCli'

const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version

describe('bridge status', () => {
  let daemon: RunningDaemon
  const others: string[] = []
  beforeAll(async () => {
    daemon = await startDaemon()
  })
  afterAll(async () => {
    await daemon?.stop()
    for (const dir of others) rmSync(dir, { recursive: true, force: true })
  })

  it('shows version, SDK version, uptime, extension, clients, plugins and tools', async () => {
    const result = await runCli(['status', '--port', String(daemon.port)], daemon.configDir)
    expect(result.code).toBe(0)
    expect(result.stdout).toContain(
      `bridge ${version} running on http://127.0.0.1:${daemon.port} (production mode, node engine)`,
    )
    expect(result.stdout).toMatch(/SDK version\s+\d+\.\d+\.\d+/)
    expect(result.stdout).toMatch(/uptime\s+(\d+m )?\d+s/)
    expect(result.stdout).toMatch(/extension\s+not connected/)
    expect(result.stdout).toMatch(/MCP clients\s+0/)
    expect(result.stdout).toMatch(/plugins\s+0/)
    expect(result.stdout).toMatch(/tools\s+(\d+): 0 from plugins, \1 built-in \(all off\)\n/)
    expect(result.stdout).not.toContain(daemon.secret)
  })

  it('counts an agent with two sessions as one MCP client', async () => {
    const first = await connectMcp(daemon)
    const second = await connectMcp(daemon)
    try {
      const result = await runCli(['status', '--port', String(daemon.port)], daemon.configDir)
      expect(result.stdout).toMatch(/MCP clients\s+1 \(2 sessions\)\n/)
    } finally {
      await first.close()
      await second.close()
    }
  })

  it('--json prints the authenticated /health payload', async () => {
    const result = await runCli(['status', '--json'], daemon.configDir, { BRIDGE_PORT: String(daemon.port) })
    expect(result.code).toBe(0)
    const health = JSON.parse(result.stdout) as Record<string, unknown>
    expect(health).toMatchObject({
      status: 'ok',
      version,
      httpEngine: 'node',
      mode: 'production',
      mcpClients: 0,
    })
    expect(Object.keys(health)).toEqual(
      expect.arrayContaining(['uptime', 'auditSummary', 'browserToolNames', 'stateSchemaVersion']),
    )
  })

  it('runs as the default command', async () => {
    const result = await runCli(['--port', String(daemon.port)], daemon.configDir)
    expect(result.code).toBe(0)
    expect(result.stdout).toContain(`bridge ${version} running on`)
  })

  it('takes the port from config.json when no flag or BRIDGE_PORT is given', async () => {
    const dir = tempConfigDir()
    others.push(dir)
    mkdirSync(join(dir, 'extension'))
    writeFileSync(join(dir, 'extension/auth.json'), JSON.stringify({ secret: daemon.secret }))
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ port: daemon.port }))
    const result = await runCli([], dir)
    expect(result.code).toBe(0)
    expect(result.stdout).toContain(`running on http://127.0.0.1:${daemon.port}`)
  })

  it('says clearly, and sends nothing, when the daemon on the port cannot prove it knows the secret in auth.json', async () => {
    const dir = tempConfigDir()
    others.push(dir)
    mkdirSync(join(dir, 'extension'))
    writeFileSync(join(dir, 'extension/auth.json'), JSON.stringify({ secret: 'b'.repeat(64) }))
    const result = await runCli(['status', '--port', String(daemon.port)], dir)
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(
      `something else is listening on 127.0.0.1:${daemon.port}: it does not know bridge's secret, so nothing was sent to it`,
    )
    expect(result.stderr).toContain('another BRIDGE_CONFIG_DIR')
    expect(result.stderr).not.toContain('b'.repeat(64))
  })

  it('exits 1 with a clear message when no daemon runs', async () => {
    const dir = tempConfigDir()
    others.push(dir)
    // Port 1 is privileged and unused here: nothing answers on it.
    const result = await runCli(['status', '--port', '1'], dir)
    expect(result.code).toBe(1)
    // One `bridge:` prefix, not `bridge: bridge is not running`.
    expect(result.stderr).toMatch(
      /^bridge: the daemon is not running: no bridge daemon answers on http:\/\/127\.0\.0\.1:1 /,
    )
    expect(result.stderr).toContain('bridge start')
  })

  it('prints the version with -V and refuses unknown commands', async () => {
    const v = await runCli(['-V'], daemon.configDir)
    expect(v.stdout).toContain(`bridge/${version}`)
    const unknown = await runCli(['frobnicate'], daemon.configDir)
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain('unknown command "frobnicate"')
  })

  it('says a plugin subcommand is unknown before printing the plugin help', async () => {
    const result = await runCli(['plugin', 'frob'], daemon.configDir)
    expect(result.code).toBe(1)
    const output = `${result.stderr}${result.stdout}`
    expect(output).toContain(
      'unknown command "plugin frob"; the plugin commands are create, list, search, install and remove',
    )
    expect(output.indexOf('unknown command')).toBeLessThan(output.indexOf('Usage:'))
  })
})
