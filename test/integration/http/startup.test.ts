/**
 * Starting the real daemon process: the files it creates (bytes and modes), what it refuses to start
 * with (a port in use, a broken config.json or auth.json) and the message it gives.
 */
import { chmodSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  CLI_JS,
  ENGINES,
  runDaemonToExit,
  SERVER_JS,
  spawnDaemon,
  startDaemon,
  tempConfigDir,
  type RunningDaemon,
  type StartDaemonOptions,
  waitForBuild,
} from '../../helpers/daemon'

const modeOf = (path: string) => statSync(path).mode & 0o777

const dirs: string[] = []
const daemons: RunningDaemon[] = []
afterEach(async () => {
  await Promise.all(daemons.splice(0).map((d) => d.stop()))
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})
const freshDir = () => {
  const dir = tempConfigDir()
  dirs.push(dir)
  return dir
}

describe.each(ENGINES)('daemon start on the %s engine', (engine) => {
  it('creates the config directory, config.json, auth.json and server.log with private modes on first start', async () => {
    const dir = join(freshDir(), 'nested', '.bridge')
    const daemon = await startDaemon({ engine, configDir: dir })
    daemons.push(daemon)
    expect(modeOf(dir)).toBe(0o700)
    expect(modeOf(join(dir, 'extension'))).toBe(0o700)
    expect(modeOf(join(dir, 'config.json'))).toBe(0o600)
    expect(modeOf(join(dir, 'extension/auth.json'))).toBe(0o600)
    expect(modeOf(join(dir, 'server.log'))).toBe(0o600)
    expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'))).toEqual({
      localPlugins: [],
      permissions: {},
      port: 9515,
    })
    const auth = JSON.parse(readFileSync(join(dir, 'extension/auth.json'), 'utf8')) as { secret: string }
    expect(auth).toEqual({ secret: expect.stringMatching(/^[0-9a-f]{64}$/) })
    expect(auth.secret).toBe(daemon.secret)
    expect(readFileSync(join(dir, 'server.log'), 'utf8')).toMatch(
      new RegExp(`bridge listening on http://127\\.0\\.0\\.1:${daemon.port}`),
    )
    expect(readFileSync(join(dir, 'server.log'), 'utf8')).not.toContain(daemon.secret)
    expect(readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([])
  })

  it('keeps the secret and the config across restarts, and tightens loose modes on existing files', async () => {
    const dir = freshDir()
    const first = await startDaemon({ engine, configDir: dir })
    await first.stop()
    const config = {
      localPlugins: ['./plugins/notes'],
      permissions: { notes: { permission: 'ask' } },
      port: 9600,
      extra: 'kept',
    }
    writeFileSync(join(dir, 'config.json'), JSON.stringify(config))
    chmodSync(join(dir, 'config.json'), 0o644)
    chmodSync(join(dir, 'extension/auth.json'), 0o644)
    chmodSync(join(dir, 'server.log'), 0o644)
    chmodSync(dir, 0o755)
    writeFileSync(join(dir, '.config.json.999999.deadbeef.tmp'), '{"half": ')
    const second = await startDaemon({ engine, configDir: dir })
    daemons.push(second)
    expect(second.secret).toBe(first.secret)
    expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'))).toEqual(config)
    expect(modeOf(dir)).toBe(0o700)
    expect(modeOf(join(dir, 'config.json'))).toBe(0o600)
    expect(modeOf(join(dir, 'extension/auth.json'))).toBe(0o600)
    expect(modeOf(join(dir, 'server.log'))).toBe(0o600)
    expect(readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([])
    expect((await second.fetch('/health', { auth: false })).status).toBe(200)
  })

  it('exits 1 with a message naming the port when the port is in use', async () => {
    const running = await startDaemon({ engine })
    daemons.push(running)
    const result = await runDaemonToExit({
      engine,
      configDir: freshDir(),
      env: { PORT: String(running.port) },
    })
    expect(result.code).toBe(1)
    expect(result.output).toContain(`port ${running.port}`)
    expect(result.output).toMatch(/already in use/)
    expect((await running.fetch('/health', { auth: false })).status).toBe(200)
  })

  it('exits 1 naming an invalid --port or PORT, and reads neither BRIDGE_PORT nor config.json', async () => {
    const cases: Array<[StartDaemonOptions, string]> = [
      [{ env: { PORT: 'abc' } }, 'abc'],
      [{ args: ['--port', '70000'] }, '70000'],
      [{ env: { PORT: '1e3' } }, '1e3'],
      [{ args: ['--port', '0x50'] }, '0x50'],
    ]
    for (const [options, bad] of cases) {
      const result = await runDaemonToExit({ engine, configDir: freshDir(), ...options })
      expect(result.code, bad).toBe(1)
      expect(result.output).toContain(`invalid port "${bad}" (expected 0-65535; 0 picks a free port)`)
    }
    // BRIDGE_PORT and config.json's port are the CLI's settings: the server listens on PORT (0 here).
    const dir = freshDir()
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ port: 1 }))
    const daemon = await startDaemon({ engine, configDir: dir, env: { BRIDGE_PORT: '2' } })
    daemons.push(daemon)
    expect(daemon.port).toBeGreaterThan(1024)
  })

  it('refuses to start with an unparseable config.json, names the file, and leaves it untouched', async () => {
    const dir = freshDir()
    const broken = '{ "localPlugins": [ "./a", }\n'
    writeFileSync(join(dir, 'config.json'), broken)
    const result = await runDaemonToExit({ engine, configDir: dir })
    expect(result.code).toBe(1)
    expect(result.output).toContain(join(dir, 'config.json'))
    expect(result.output).toMatch(/not valid JSON/)
    expect(readFileSync(join(dir, 'config.json'), 'utf8')).toBe(broken)
    expect(result.output).not.toMatch(/bridge listening/)
  })

  it('refuses a config.json that does not match the schema, naming the property', async () => {
    const dir = freshDir()
    const wrong = JSON.stringify({
      localPlugins: [],
      permissions: { notes: { permission: 'always' } },
      port: 9515,
    })
    writeFileSync(join(dir, 'config.json'), wrong)
    const result = await runDaemonToExit({ engine, configDir: dir })
    expect(result.code).toBe(1)
    expect(result.output).toContain(join(dir, 'config.json'))
    expect(result.output).toContain('permissions.notes.permission')
    expect(result.output).toMatch(/"off", "ask", "auto"/)
    expect(readFileSync(join(dir, 'config.json'), 'utf8')).toBe(wrong)
  })

  it('refuses a port of the wrong type in config.json', async () => {
    const dir = freshDir()
    writeFileSync(join(dir, 'config.json'), '{"port": "9515"}')
    const result = await runDaemonToExit({ engine, configDir: dir })
    expect(result.code).toBe(1)
    expect(result.output).toMatch(/config\.json: port must be integer/)
  })

  it('refuses a broken auth.json without replacing it and without printing its content', async () => {
    const dir = freshDir()
    mkdirSync(join(dir, 'extension'), { recursive: true })
    const broken = JSON.stringify({ secret: 'f00d'.repeat(8) })
    writeFileSync(join(dir, 'extension/auth.json'), broken)
    const result = await runDaemonToExit({ engine, configDir: dir })
    expect(result.code).toBe(1)
    expect(result.output).toContain(join(dir, 'extension/auth.json'))
    expect(result.output).not.toContain('f00d'.repeat(8))
    expect(readFileSync(join(dir, 'extension/auth.json'), 'utf8')).toBe(broken)
  })

  it('keeps running and stops cleanly when its terminal goes away', async () => {
    const daemon = await startDaemon({ engine, configDir: freshDir() })
    // Close our end of its stdout and stderr: every later log line now hits a broken pipe.
    daemon.proc.stdout?.destroy()
    daemon.proc.stderr?.destroy()
    expect((await daemon.fetch('/nope')).status).toBe(404)
    expect(await daemon.stop()).toBe(0)
    expect(readFileSync(join(daemon.configDir, 'server.log'), 'utf8')).toMatch(
      /SIGTERM received[\s\S]*bridge stopped/,
    )
  })

  it('stops on SIGTERM with exit code 0', async () => {
    const daemon = await startDaemon({ engine })
    expect(await daemon.stop()).toBe(0)
    expect(daemon.output()).toMatch(/SIGTERM received/)
  })

  it.each(['server', 'cli'] as const)(
    'holds a SIGTERM that arrives while it is still starting (%s), then stops cleanly',
    async (via) => {
      const configDir = freshDir()
      await waitForBuild(via === 'cli' ? CLI_JS : SERVER_JS)
      const child = spawnDaemon({
        engine,
        configDir,
        via,
        env: { PORT: '0' },
        args: via === 'cli' ? ['--port', '0'] : [],
      })
      // Plugin discovery runs before the daemon listens: signal it right then.
      await vi.waitFor(() => expect(child.output()).toMatch(/\[plugins\] discovery/), {
        timeout: 15_000,
        interval: 5,
      })
      child.proc.kill('SIGTERM')
      const timer = setTimeout(() => child.proc.kill('SIGKILL'), 10_000)
      const code = await child.exited
      clearTimeout(timer)
      expect(code, child.output()).toBe(0)
      expect(child.output()).toMatch(/SIGTERM received, shutting down[\s\S]*bridge stopped/)
    },
  )
})

describe('BRIDGE_LOG_LEVEL', () => {
  it('at "error" prints the failure but not the info lines', async () => {
    const running = await startDaemon()
    daemons.push(running)
    const dir = freshDir()
    const result = await runDaemonToExit({
      configDir: dir,
      env: { PORT: String(running.port), BRIDGE_LOG_LEVEL: 'error' },
    })
    expect(result.code).toBe(1)
    expect(result.output).toMatch(/already in use/)
    expect(result.output).not.toMatch(/\[plugins\]|listening/)
    expect(readFileSync(join(dir, 'server.log'), 'utf8')).not.toMatch(/ INFO /)
  })

  it('at "silent" prints nothing and still exits 1', async () => {
    const running = await startDaemon()
    daemons.push(running)
    const result = await runDaemonToExit({
      configDir: freshDir(),
      env: { PORT: String(running.port), BRIDGE_LOG_LEVEL: 'silent' },
    })
    expect(result.code).toBe(1)
    expect(result.output).toBe('')
  })
})

describe('engine choice', () => {
  it('refuses an unknown BRIDGE_HTTP_ENGINE value', async () => {
    const result = await runDaemonToExit({ configDir: freshDir(), env: { BRIDGE_HTTP_ENGINE: 'nginx' } })
    expect(result.code).toBe(1)
    expect(result.output).toMatch(/BRIDGE_HTTP_ENGINE must be auto, node or uws/)
  })

  it('uses uws in auto mode when it loads', async () => {
    const daemon = await startDaemon({ env: { BRIDGE_HTTP_ENGINE: 'auto' } })
    daemons.push(daemon)
    expect(((await (await daemon.fetch('/health')).json()) as { httpEngine: string }).httpEngine).toBe('uws')
  })

  it('uses node when BRIDGE_HTTP_ENGINE is unset', async () => {
    const daemon = await startDaemon({ env: { BRIDGE_HTTP_ENGINE: undefined } })
    daemons.push(daemon)
    expect(((await (await daemon.fetch('/health')).json()) as { httpEngine: string }).httpEngine).toBe('node')
  })
})
