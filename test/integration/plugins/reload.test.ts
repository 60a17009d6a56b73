// The plugin flow against the real daemon process: `bridge-plugin build` registers a plugin and asks
// the running daemon to reload; /health then shows the plugin, its tools and the reload figures.
import { spawn } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { runCommand } from '../../helpers/runCommand'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { ENGINES, ROOT, startDaemon, type RunningDaemon } from '../../helpers/daemon'
import { copyFixture, copyPlugin, NOTES_PLUGIN_DIR, tempDir } from '../../fixtures/plugins'

// These tests spawn processes (daemon, npm, builds); give them room on a loaded machine.
const SLOW = { timeout: 90_000 }

const PLUGIN_CLI = join(ROOT, 'dist', 'cli', 'bridgePlugin.js')

/** Runs `bridge-plugin <args>` against a daemon's config dir and port. */
export function bridgePlugin(args: string[], opts: { cwd: string; configDir: string; port?: number }) {
  const env: NodeJS.ProcessEnv = { ...process.env, BRIDGE_CONFIG_DIR: opts.configDir, NO_COLOR: '1' }
  if (opts.port) env.BRIDGE_PORT = String(opts.port)
  else delete env.BRIDGE_PORT
  return runCommand(process.execPath, [PLUGIN_CLI, ...args], env, undefined, opts.cwd)
}

interface Health {
  plugins: number
  pluginDetails: Array<Record<string, unknown>>
  failedPlugins: Array<{ path: string; error: string }>
  toolCount: number
  browserToolCount: number
  pluginToolCount: number
  reloadCount: number
  lastReloadTimestamp: number
  lastReloadDurationMs: number
  discoveryErrors: unknown[]
}

const health = async (daemon: RunningDaemon) => (await (await daemon.fetch('/health')).json()) as Health

describe.each(ENGINES)('plugins and /reload (%s engine)', SLOW, (engine) => {
  let daemon: RunningDaemon
  let tmp: ReturnType<typeof tempDir>
  beforeAll(async () => {
    tmp = tempDir('reload')
    daemon = await startDaemon({ engine })
  })
  afterAll(async () => {
    await daemon?.stop()
    tmp?.cleanup()
  })

  it('starts with no plugins and no reloads', async () => {
    expect(await health(daemon)).toMatchObject({
      plugins: 0,
      pluginDetails: [],
      failedPlugins: [],
      pluginToolCount: 0,
      reloadCount: 0,
      lastReloadTimestamp: 0,
      lastReloadDurationMs: 0,
      discoveryErrors: [],
    })
  })

  it('refuses /reload without the secret', async () => {
    const response = await daemon.fetch('/reload', { method: 'POST', auth: false })
    expect(response.status).toBe(401)
    expect((await health(daemon)).reloadCount).toBe(0)
  })

  it('loads a plugin after bridge-plugin build and shows it in /health', async () => {
    const dir = copyPlugin(NOTES_PLUGIN_DIR, tmp.dir, 'notes-plugin')
    const before = Date.now()
    const build = await bridgePlugin(['build'], { cwd: dir, configDir: daemon.configDir, port: daemon.port })
    expect(build.out).toMatch(
      /built notes@0\.1\.0: 5 tools \(whoami, list_notes, create_note, delete_note, slow_count\)/,
    )
    expect(build.out).toContain(
      `registered ${dir} in ${join(daemon.configDir, 'config.json')} (localPlugins)`,
    )
    expect(build.out).toMatch(/daemon reloaded in \d+ ms: 1 plugin, notes loaded/)
    expect(build.code).toBe(0)

    const h = await health(daemon)
    expect(h.plugins).toBe(1)
    expect(h.pluginDetails).toEqual([
      {
        name: 'notes',
        displayName: 'Demo Notes',
        version: '0.1.0',
        packageName: 'bridge-plugin-notes',
        adapterHash: expect.stringMatching(/^[0-9a-f]{64}$/),
        toolCount: 5,
        tools: [
          'notes_whoami',
          'notes_list_notes',
          'notes_create_note',
          'notes_delete_note',
          'notes_slow_count',
        ],
        tabState: 'closed',
        tabs: [],
        iconSvg: readFileSync(join(dir, 'icon.svg'), 'utf8').trim(),
        source: 'local',
        path: dir,
        sdkVersion: '1.0.0',
        logBufferSize: 0,
      },
    ])
    expect(h.pluginToolCount).toBe(5)
    expect(h.toolCount).toBe(h.browserToolCount + 5)
    expect(h.reloadCount).toBe(1)
    expect(h.lastReloadTimestamp).toBeGreaterThanOrEqual(before)
    expect(h.lastReloadDurationMs).toBeGreaterThanOrEqual(0)
    expect(readFileSync(join(daemon.configDir, 'extension', 'adapters', 'notes.js'))).toEqual(
      readFileSync(join(dir, 'dist', 'adapter.iife.js')),
    )
  })

  it('answers POST /reload with ok, plugin count and duration', async () => {
    const response = await daemon.fetch('/reload', { method: 'POST' })
    expect(response.status).toBe(200)
    const body = (await response.json()) as { ok: boolean; plugins: number; durationMs: number }
    expect(body).toEqual({ ok: true, plugins: 1, durationMs: expect.any(Number) })
    expect((await health(daemon)).reloadCount).toBe(2)
  })

  it('lists a broken plugin in failedPlugins and keeps the others', async () => {
    const broken = copyFixture('good', tmp.dir)
    const config = JSON.parse(readFileSync(join(daemon.configDir, 'config.json'), 'utf8'))
    config.localPlugins.push(broken)
    writeFileSync(join(daemon.configDir, 'config.json'), JSON.stringify(config))
    expect((await daemon.fetch('/reload', { method: 'POST' })).status).toBe(200)
    const h = await health(daemon)
    expect(h.pluginDetails.map((p) => p.name)).toEqual(['notes'])
    expect(h.failedPlugins).toEqual([
      {
        path: broken,
        error: `not built: dist/tools.json is missing; run "bridge-plugin build" in ${broken}`,
      },
    ])
  })

  it('shows a config.json that does not parse as a discovery error and keeps the plugins', async () => {
    const file = join(daemon.configDir, 'config.json')
    const good = readFileSync(file, 'utf8')
    writeFileSync(file, '{ broken')
    try {
      const response = await daemon.fetch('/reload', { method: 'POST' })
      expect(await response.json()).toMatchObject({ ok: false, plugins: 1 })
      const h = await health(daemon)
      expect(h.pluginDetails.map((p) => p.name)).toEqual(['notes'])
      expect(h.discoveryErrors).toEqual([
        {
          source: 'config',
          message: expect.stringMatching(/^config\.json was not re-read: .*config\.json is not valid JSON/),
        },
      ])
    } finally {
      writeFileSync(file, good)
    }
  })
})

describe('POST /reload rate limit', SLOW, () => {
  let daemon: RunningDaemon
  afterEach(async () => {
    await daemon?.stop()
  })

  it('allows 10 reloads a minute, then answers 429 with Retry-After: 60', async () => {
    daemon = await startDaemon()
    for (let i = 0; i < 10; i++) expect((await daemon.fetch('/reload', { method: 'POST' })).status).toBe(200)
    const limited = await daemon.fetch('/reload', { method: 'POST' })
    expect(limited.status).toBe(429)
    expect(limited.headers.get('retry-after')).toBe('60')
    expect(((await limited.json()) as { error: { code: string } }).error.code).toBe('rate_limited')
    expect((await health(daemon)).reloadCount).toBe(10)
  })
})

describe('package plugins', SLOW, () => {
  let daemon: RunningDaemon
  let tmp: ReturnType<typeof tempDir>
  beforeAll(() => {
    tmp = tempDir('npm')
  })
  afterAll(async () => {
    await daemon?.stop()
    tmp?.cleanup()
  })

  it('discovers a plugin installed with npm install -g into a temp prefix, at startup', async () => {
    const dir = copyPlugin(NOTES_PLUGIN_DIR, tmp.dir, 'notes-plugin')
    const prefix = join(tmp.dir, 'prefix')
    const configDir = join(tmp.dir, 'config')
    const build = await bridgePlugin(['build', '--no-register', '--no-reload'], { cwd: dir, configDir })
    expect(build.code).toBe(0)
    const npm = (args: string[], cwd: string) =>
      new Promise<string>((resolve, reject) => {
        const proc = spawn('npm', args, {
          cwd,
          env: { ...process.env, NPM_CONFIG_PREFIX: prefix },
          stdio: ['ignore', 'pipe', 'pipe'],
        })
        let out = ''
        proc.stdout.on('data', (c: Buffer) => (out += c.toString()))
        proc.stderr.on('data', (c: Buffer) => (out += c.toString()))
        proc.once('exit', (code) =>
          code === 0 ? resolve(out) : reject(new Error(`npm ${args.join(' ')}: ${out}`)),
        )
      })
    const tarball = (await npm(['pack', '--silent', '--pack-destination', tmp.dir], dir))
      .trim()
      .split('\n')
      .pop()!
    await npm(['install', '-g', '--offline', '--no-audit', '--no-fund', join(tmp.dir, tarball)], tmp.dir)
    const installed = join(prefix, 'lib', 'node_modules', 'bridge-plugin-notes')
    expect(existsSync(join(installed, 'dist', 'tools.json'))).toBe(true)

    daemon = await startDaemon({
      configDir,
      env: { BRIDGE_SKIP_REGISTRY_DISCOVERY: undefined, NPM_CONFIG_PREFIX: prefix },
    })
    const h = await health(daemon)
    expect(h.pluginDetails.map((p) => [p.name, p.source])).toEqual([['notes', 'npm']])
    expect(h.discoveryErrors).toEqual([])
    expect(h.reloadCount).toBe(0)
  })
})
