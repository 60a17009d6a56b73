/**
 * `bridge start`: first-run files and instructions, later runs, --show-config, --background, and the
 * refusals (port in use, broken config).
 */
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { EXTENSION_PUBLIC_KEY } from '../../../src/protocol/constants'
import { ROOT, runDaemonToExit, startDaemon, tempConfigDir, type RunningDaemon } from '../../helpers/daemon'
import { runCli } from './runCli'

const BRIDGE_VERSION_OF_PACKAGE = (
  JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }
).version
const dirs: string[] = []
const daemons: RunningDaemon[] = []
const pids: number[] = []
afterEach(async () => {
  await Promise.all(daemons.splice(0).map((d) => d.stop()))
  for (const pid of pids.splice(0)) {
    try {
      process.kill(pid, 'SIGTERM')
    } catch {
      // already gone
    }
  }
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})
const freshDir = () => {
  const dir = tempConfigDir()
  dirs.push(dir)
  return dir
}

describe('bridge start', () => {
  it("on first run creates the files and the default client, installs the extension and prints the MCP config with the client's token, not the secret", async () => {
    const dir = freshDir()
    const daemon = await startDaemon({ via: 'cli', configDir: dir, args: ['--port', '0'] })
    daemons.push(daemon)
    await daemon.waitForOutput(/Load unpacked/)
    const out = daemon.output()
    expect(out).toContain(`First run: created ${join(dir, 'config.json')}`)
    const block = /\{\n\s+"mcpServers"[\s\S]*?\n\}/.exec(out)
    expect(block).not.toBeNull()
    const clients = JSON.parse(readFileSync(join(dir, 'clients.json'), 'utf8')) as {
      clients: { name: string; token: string }[]
    }
    expect(clients.clients.map((c) => c.name)).toEqual(['default'])
    expect(statSync(join(dir, 'clients.json')).mode & 0o777).toBe(0o600)
    expect(JSON.parse(block![0])).toEqual({
      mcpServers: {
        bridge: {
          type: 'http',
          url: `http://127.0.0.1:${daemon.port}/mcp`,
          headers: { Authorization: `Bearer ${clients.clients[0]!.token}` },
        },
      },
    })
    expect(out).not.toContain(daemon.secret)
    expect(out).toContain(join(dir, 'extension'))
    const manifest = JSON.parse(readFileSync(join(dir, 'extension/manifest.json'), 'utf8')) as {
      key: string
      manifest_version: number
    }
    expect(manifest).toMatchObject({
      manifest_version: 3,
      key: EXTENSION_PUBLIC_KEY,
      version_name: BRIDGE_VERSION_OF_PACKAGE,
    })
    expect(JSON.parse(readFileSync(join(dir, 'extension/server.json'), 'utf8'))).toEqual({
      port: daemon.port,
    })
    expect(statSync(join(dir, 'config.json')).mode & 0o777).toBe(0o600)
    expect(statSync(join(dir, 'extension/auth.json')).mode & 0o777).toBe(0o600)
    // The token went to the terminal on purpose, but neither it nor the secret to the log file.
    expect(readFileSync(join(dir, 'server.log'), 'utf8')).not.toContain(daemon.secret)
    expect(readFileSync(join(dir, 'server.log'), 'utf8')).not.toContain(clients.clients[0]!.token)
    expect((await daemon.fetch('/health')).status).toBe(200)
  })

  it('does not print the secret on later runs unless --show-config is given', async () => {
    const dir = freshDir()
    const first = await startDaemon({ via: 'cli', configDir: dir })
    await first.waitForOutput(/Load unpacked/)
    await first.stop()
    const second = await startDaemon({ via: 'cli', configDir: dir })
    daemons.push(second)
    await second.waitForOutput(/Load unpacked/)
    expect(second.secret).toBe(first.secret)
    expect(second.output()).not.toContain(second.secret)
    expect(second.output()).not.toContain('First run')
    expect(second.output()).toContain('--show-config')
    await second.stop()
    const third = await startDaemon({ via: 'cli', configDir: dir, args: ['--show-config'] })
    daemons.push(third)
    await third.waitForOutput(/Load unpacked/)
    const token = (
      JSON.parse(readFileSync(join(dir, 'clients.json'), 'utf8')) as { clients: { token: string }[] }
    ).clients[0]!.token
    expect(second.output()).not.toContain(token)
    // --show-config prints both, each labelled: the default client's configuration and the secret.
    expect(third.output()).toContain('MCP client "default"')
    expect(third.output()).toContain(`"Authorization": "Bearer ${token}"`)
    expect(third.output()).toContain(`auth.json secret (for the extension and the bridge CLI only`)
    expect(third.output()).toContain(`  ${third.secret}`)
  })

  it('--port wins over BRIDGE_PORT, PORT and config.json', async () => {
    const dir = freshDir()
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ port: 1 }))
    const daemon = await startDaemon({
      via: 'cli',
      configDir: dir,
      args: ['--port', '0'],
      env: { BRIDGE_PORT: '1', PORT: '1' },
    })
    daemons.push(daemon)
    expect(daemon.port).toBeGreaterThan(1)
  })

  it('exits 1 naming the port when it is in use', async () => {
    const running = await startDaemon()
    daemons.push(running)
    const result = await runCli(['start', '--port', String(running.port)], freshDir())
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(`port ${running.port}`)
    expect(result.stderr).toMatch(/already in use/)
  })

  it("with its daemon already running, --show-config prints that daemon's configuration and starts nothing", async () => {
    const dir = freshDir()
    const running = await startDaemon({ via: 'cli', configDir: dir, args: ['--port', '0'] })
    daemons.push(running)
    await running.waitForOutput(/Load unpacked/)
    const result = await runCli(['start', '--show-config', '--port', String(running.port)], dir)
    expect(result.code, result.stderr).toBe(0)
    const token = (
      JSON.parse(readFileSync(join(dir, 'clients.json'), 'utf8')) as { clients: { token: string }[] }
    ).clients[0]!.token
    expect(result.stdout).toContain(
      `bridge ${BRIDGE_VERSION_OF_PACKAGE} is already running on http://127.0.0.1:${running.port}; its configuration:`,
    )
    expect(result.stdout).toContain(`"url": "http://127.0.0.1:${running.port}/mcp"`)
    expect(result.stdout).toContain(`"Authorization": "Bearer ${token}"`)
    expect(result.stdout).toContain(`  ${running.secret}`)
    expect((await running.fetch('/health')).status).toBe(200)
  })

  it('with its daemon already running on any port, names it and how to stop it, before it discovers any plugin', async () => {
    const dir = freshDir()
    const running = await startDaemon({ via: 'cli', configDir: dir, args: ['--port', '0'] })
    daemons.push(running)
    await running.waitForOutput(/Load unpacked/)
    // Discovery would report this folder; a start that stops at the lock never gets there.
    const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as Record<string, unknown>
    const missing = join(dir, 'no-such-plugin')
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ ...config, localPlugins: [missing] }))
    // Another port than the running daemon's: still the same folder, so still refused.
    for (const port of ['0', String(running.port)]) {
      const result = await runCli(['start', '--port', port], dir)
      expect(result.code).toBe(1)
      expect(result.stderr).toMatch(
        new RegExp(
          `^bridge: bridge ${BRIDGE_VERSION_OF_PACKAGE.replace(/\./g, '\\.')} is already running for ${dir} \\(pid ${running.proc.pid}, port ${running.port}, since \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z\\); one daemon per config folder: \`bridge stop\` stops it, \`bridge status\` shows it\\n$`,
        ),
      )
      expect(result.stdout + result.stderr).not.toContain(missing)
    }
    // The commands it names reach that daemon, as printed (no --port: the lock says where it runs).
    const status = await runCli(['status'], dir)
    expect(status.code, status.stderr).toBe(0)
    expect(status.stdout).toContain(`running on http://127.0.0.1:${running.port}`)
    // The server binary started on the same folder refuses too, with the same sentence.
    const server = await runDaemonToExit({ configDir: dir })
    expect(server.code).toBe(1)
    expect(server.output).toContain(
      `is already running for ${dir} (pid ${running.proc.pid}, port ${running.port}`,
    )
    expect((await running.fetch('/health')).status).toBe(200)
  })

  it('takes over the folder of a daemon that was killed (its socket left behind, nobody listening)', async () => {
    const dir = freshDir()
    const first = await startDaemon({ via: 'cli', configDir: dir, args: ['--port', '0'] })
    await first.waitForOutput(/Load unpacked/)
    first.proc.kill('SIGKILL')
    await new Promise((resolve) => first.proc.once('exit', resolve))
    expect(statSync(join(dir, 'daemon.sock')).isSocket()).toBe(true)
    const second = await startDaemon({ via: 'cli', configDir: dir, args: ['--port', '0'] })
    daemons.push(second)
    await second.waitForOutput(/Load unpacked/)
    expect((await second.fetch('/health')).status).toBe(200)
  })

  it('exits 1 naming config.json when it does not parse, and leaves it as it was', async () => {
    const dir = freshDir()
    writeFileSync(join(dir, 'config.json'), '{"port": 9515,,}')
    const result = await runCli(['start', '--port', '0'], dir)
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(join(dir, 'config.json'))
    expect(result.stderr).toMatch(/not valid JSON/)
    expect(readFileSync(join(dir, 'config.json'), 'utf8')).toBe('{"port": 9515,,}')
  })

  it('--background starts the daemon, writes server.pid (0600) and returns', async () => {
    const dir = freshDir()
    const result = await runCli(['start', '--background', '--port', '0'], dir)
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    const pid = Number(readFileSync(join(dir, 'server.pid'), 'utf8').trim())
    pids.push(pid)
    expect(statSync(join(dir, 'server.pid')).mode & 0o777).toBe(0o600)
    expect(() => process.kill(pid, 0)).not.toThrow()
    const port = (JSON.parse(readFileSync(join(dir, 'extension/server.json'), 'utf8')) as { port: number })
      .port
    expect(result.stdout).toContain(
      `bridge started in the background (pid ${pid}), listening on http://127.0.0.1:${port}`,
    )
    const res = await fetch(`http://127.0.0.1:${port}/health`)
    expect(await res.json()).toEqual({ status: 'ok' })
    process.kill(pid, 'SIGTERM')
    await new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        try {
          process.kill(pid, 0)
        } catch {
          clearInterval(poll)
          resolve()
        }
      }, 50)
    })
    expect(existsSync(join(dir, 'server.pid'))).toBe(true)
  })
})
