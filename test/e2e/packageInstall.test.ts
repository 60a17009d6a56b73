// bridge installed the way a person installs it: a copy of this checkout without dist/ packed
// (`npm pack`, whose prepack builds), published to a real npm registry (verdaccio on loopback),
// `npm i -g @bridge-mcp/bridge` into a temp global prefix, its `bridge` started from that prefix, a real
// MCP SDK client connected with the configuration the banner printed, a tool called; then a newer
// release published and `bridge update` installing it. And `npx -y @bridge-mcp/bridge start` against
// the same registry, whose banner writes its commands as npx commands that work when pasted.
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ROOT, daemonEnv, tempConfigDir } from '../helpers/daemon'
import { FakeExtension } from '../helpers/fakeExtension'
import { connectMcp } from '../helpers/mcpClient'
import { startRegistry, type TestRegistry } from '../helpers/registry'
import { REGISTRY_NPM_TIMEOUT_MS, REGISTRY_TEST_TIMEOUT_MS, scaled } from '../helpers/timing'
import {
  bannerMcpConfig,
  freePort,
  newerRelease,
  packBridge,
  runCommand,
  runtimeDependencyClosure,
  type PackedBridge,
} from './support/packedBridge'

const PACKAGE = '@bridge-mcp/bridge'
const CLI_TIMEOUT_MS = scaled(60_000)

describe('the published package', { timeout: REGISTRY_TEST_TIMEOUT_MS }, () => {
  let registry: TestRegistry
  let work: string
  let packed: PackedBridge
  /** The port of the daemon the global install started (the update test restarts it). */
  let daemonPort = 0
  const configDirs: string[] = []
  const bin = (name: string) => join(registry.prefix, 'bin', name)
  const installedDir = () => join(registry.prefix, 'lib', 'node_modules', PACKAGE)
  /** A user's environment: npm set up for the registry, the global prefix's bin first on PATH. */
  const userEnv = (configDir: string, extra: Record<string, string | undefined> = {}) =>
    daemonEnv(configDir, 'node', {
      ...registry.env(),
      PATH: `${join(registry.prefix, 'bin')}${delimiter}${process.env.PATH ?? ''}`,
      PORT: undefined,
      BRIDGE_SKIP_REGISTRY_DISCOVERY: undefined,
      ...extra,
    })

  beforeAll(async () => {
    registry = await startRegistry()
    work = mkdtempSync(join(tmpdir(), 'bridge-package-'))
    packed = await packBridge(work)
    await registry.mirror(join(ROOT, 'node_modules'), runtimeDependencyClosure())
    await registry.publish(packed.dir, {
      name: PACKAGE,
      version: packed.version,
      description: 'Local daemon that lets AI agents work in your own logged-in browser, safely.',
    })
  }, REGISTRY_TEST_TIMEOUT_MS)
  afterAll(async () => {
    for (const dir of configDirs) {
      if (existsSync(join(dir, 'server.pid'))) {
        const pid = Number(readFileSync(join(dir, 'server.pid'), 'utf8'))
        try {
          process.kill(pid, 'SIGTERM')
        } catch {
          // Already gone.
        }
      }
      rmSync(dir, { recursive: true, force: true })
    }
    await registry?.close()
    if (work) rmSync(work, { recursive: true, force: true })
  })

  it('packs the built daemon, CLI, SDK and extension, and nothing a user does not need', () => {
    expect(packed.name).toBe(PACKAGE)
    for (const file of [
      'dist/cli/bridge.js',
      'dist/cli/bridgePlugin.js',
      'dist/server.js',
      'dist/sdk/index.js',
      'dist/extension/manifest.json',
      'dist/extension/background.js',
      'src/sdk/index.ts',
      'README.md',
    ])
      expect(packed.files).toContain(file)
    expect(
      packed.files.filter((f) => /\.map$|^test\/|^scripts\/|^bench\/|^cli\/|^machines\//.test(f)),
    ).toEqual([])
  })

  it('installs globally with only its runtime dependencies, starts, and serves an MCP client a tool call', async () => {
    const configDir = tempConfigDir()
    configDirs.push(configDir)
    const install = await runCommand(
      'npm',
      ['install', '--global', '--no-audit', '--no-fund', PACKAGE],
      userEnv(configDir),
      REGISTRY_NPM_TIMEOUT_MS,
    )
    expect(install.code, install.stderr).toBe(0)
    for (const name of ['bridge', 'bridge-mcp', 'bridge-plugin']) expect(existsSync(bin(name))).toBe(true)
    // The install pulled the runtime dependencies and none of the tools a checkout needs.
    const pulled = readdirSync(join(installedDir(), 'node_modules')).flatMap((entry) =>
      entry.startsWith('@')
        ? readdirSync(join(installedDir(), 'node_modules', entry)).map((n) => `${entry}/${n}`)
        : entry.startsWith('.')
          ? []
          : [entry],
    )
    expect(pulled.sort()).toEqual(runtimeDependencyClosure().sort())
    // Two, as the README says: esbuild (with its binary for this platform) and TypeBox.
    expect(pulled.filter((name) => !name.startsWith('@esbuild/')).sort()).toEqual([
      '@sinclair/typebox',
      'esbuild',
    ])

    const port = await freePort()
    daemonPort = port
    const env = userEnv(configDir, { BRIDGE_PORT: String(port) })
    const version = await runCommand(bin('bridge'), ['--version'], env, CLI_TIMEOUT_MS)
    expect(version.stdout).toContain(packed.version)

    const started = await runCommand(bin('bridge'), ['start', '--background'], env, CLI_TIMEOUT_MS)
    expect(started.code, started.stderr).toBe(0)
    expect(started.stdout).toContain(`listening on http://127.0.0.1:${port}`)
    const mcp = bannerMcpConfig(started.stdout)
    expect(mcp.url).toBe(`http://127.0.0.1:${port}/mcp`)

    const allowed = await runCommand(
      bin('bridge'),
      ['config', 'set', 'tool-permission.browser.browser_list_tabs', 'auto'],
      env,
      CLI_TIMEOUT_MS,
    )
    expect(allowed.code, allowed.stderr).toBe(0)
    const secret = (
      JSON.parse(readFileSync(join(configDir, 'extension', 'auth.json'), 'utf8')) as { secret: string }
    ).secret
    // The answer has the shape browser_list_tabs declares: the packaged daemon checks it before it leaves.
    const tabs = [
      {
        tabId: 7,
        url: 'https://notes.test/',
        title: 'Notes',
        active: true,
        windowId: 1,
        status: 'complete',
        focusedWindow: true,
      },
    ]
    const asked: string[] = []
    const ext = await FakeExtension.connect(
      { port, secret },
      {
        autoAnswer: (params) => {
          asked.push(params.tool)
          return { tabs }
        },
      },
    )
    const client = await connectMcp({ url: mcp.url.replace(/\/mcp$/, ''), secret: mcp.token }, 'packaged')
    try {
      const result = await client.client.callTool({ name: 'browser_list_tabs', arguments: {} })
      expect(result.isError, JSON.stringify(result.content)).toBeFalsy()
      expect(JSON.stringify(result.content)).toContain('notes.test')
      expect(result.structuredContent).toEqual({ tabs })
      expect(asked).toEqual(['browser_list_tabs'])
    } finally {
      await client.close()
      await ext.close()
    }

    const status = await runCommand(bin('bridge'), ['status', '--json'], env, CLI_TIMEOUT_MS)
    expect((JSON.parse(status.stdout) as { version: string }).version).toBe(packed.version)
  })

  it('gives a plugin author a working `bridge plugin create` and `bridge-plugin build`', async () => {
    const configDir = tempConfigDir()
    configDirs.push(configDir)
    const env = userEnv(configDir)
    const authorDir = join(work, 'author')
    mkdirSync(authorDir, { recursive: true })
    const created = await runCommand(
      bin('bridge'),
      ['plugin', 'create', 'acme', '--domain', 'acme.test'],
      env,
      CLI_TIMEOUT_MS,
      authorDir,
    )
    expect(created.code, created.stderr).toBe(0)
    const pluginDir = join(authorDir, 'bridge-plugin-acme')
    // The SDK the plugin imports is the installed package's, with its dependencies beside it.
    const tsconfig = JSON.parse(readFileSync(join(pluginDir, 'tsconfig.json'), 'utf8')) as {
      compilerOptions: { paths: Record<string, string[]> }
    }
    expect(tsconfig.compilerOptions.paths['bridge/sdk']).toEqual([join(installedDir(), 'src/sdk/index.ts')])
    const built = await runCommand(
      bin('bridge-plugin'),
      ['build', '--no-reload'],
      env,
      CLI_TIMEOUT_MS,
      pluginDir,
    )
    expect(built.code, built.stderr).toBe(0)
    const manifest = JSON.parse(readFileSync(join(pluginDir, 'dist', 'tools.json'), 'utf8')) as {
      name: string
      tools: { name: string }[]
    }
    expect(manifest.name).toBe('acme')
    expect(manifest.tools.length).toBeGreaterThan(0)
    expect(existsSync(join(pluginDir, 'dist', 'adapter.iife.js'))).toBe(true)
  })

  it('updates itself to a newer published release with `bridge update`', async () => {
    const [major, minor, patch] = packed.version.split('-')[0]?.split('.').map(Number) ?? []
    const next = `${major}.${minor}.${(patch ?? 0) + 1}`
    const release = await newerRelease(packed, work, next)
    await registry.publish(release, { name: PACKAGE, version: next, description: 'The next release.' })

    const configDir = configDirs[0] ?? tempConfigDir()
    const env = userEnv(configDir, { BRIDGE_PORT: String(daemonPort) })
    const update = await runCommand(bin('bridge'), ['update'], env, REGISTRY_NPM_TIMEOUT_MS)
    expect(update.code, update.stderr).toBe(0)
    expect(update.stdout).toContain(`Installed ${PACKAGE} ${next} (was ${packed.version}).`)
    expect(update.stdout).toContain(`The running daemon is still ${packed.version}`)
    expect((await runCommand(bin('bridge'), ['--version'], env, CLI_TIMEOUT_MS)).stdout).toContain(next)

    const stopped = await runCommand(bin('bridge'), ['stop'], env, CLI_TIMEOUT_MS)
    expect(stopped.code, stopped.stderr).toBe(0)
    const restarted = await runCommand(bin('bridge'), ['start', '--background'], env, CLI_TIMEOUT_MS)
    expect(restarted.code, restarted.stderr).toBe(0)
    const status = await runCommand(bin('bridge'), ['status', '--json'], env, CLI_TIMEOUT_MS)
    expect((JSON.parse(status.stdout) as { version: string }).version).toBe(next)
    expect((await runCommand(bin('bridge'), ['stop'], env, CLI_TIMEOUT_MS)).code).toBe(0)

    const again = await runCommand(bin('bridge'), ['update'], env, REGISTRY_NPM_TIMEOUT_MS)
    expect(again.stdout).toContain(`${PACKAGE} ${next} is the latest version.`)
  })

  it('runs with `npx -y @bridge-mcp/bridge start`, and its banner connects an MCP client', async () => {
    const configDir = tempConfigDir()
    configDirs.push(configDir)
    const port = await freePort()
    // npx with nothing installed globally (an empty global prefix) and a cache of its own.
    mkdirSync(join(work, 'npx-prefix', 'lib', 'node_modules'), { recursive: true })
    const env = daemonEnv(configDir, 'node', {
      ...registry.env(),
      npm_config_cache: join(work, 'npx-cache'),
      NPM_CONFIG_PREFIX: join(work, 'npx-prefix'),
      PORT: undefined,
      BRIDGE_PORT: String(port),
    })
    const proc = spawn('npx', ['-y', PACKAGE, 'start'], {
      cwd: work,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    })
    let out = ''
    proc.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')))
    proc.stderr.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')))
    const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()))
    try {
      await Promise.race([
        expect
          .poll(() => out, { timeout: REGISTRY_NPM_TIMEOUT_MS, interval: 500 })
          .toContain('Load unpacked'),
        exited.then(() => {
          throw new Error(`npx exited before the banner:\n${out}`)
        }),
      ])
      const mcp = bannerMcpConfig(out)
      expect(mcp.url).toBe(`http://127.0.0.1:${port}/mcp`)
      const client = await connectMcp({ url: mcp.url.replace(/\/mcp$/, ''), secret: mcp.token }, 'npx')
      try {
        const tools = await client.client.listTools()
        expect(Array.isArray(tools.tools)).toBe(true)
        const result = await client.client.callTool({ name: 'browser_list_tabs', arguments: {} })
        // Its tools are off until the person turns them on: the call is refused with the way to do it.
        expect(result.isError).toBe(true)
        expect(JSON.stringify(result.content)).toContain('permission_off')
      } finally {
        await client.close()
      }
      // Nothing is on PATH after npx: the banner's commands are npx commands, and they run as printed.
      expect(out).toContain(`\`npx -y ${PACKAGE} client add <name> --for claude-code`)
      const status = await runCommand(
        'sh',
        ['-c', `npx -y ${PACKAGE} status`],
        env,
        REGISTRY_NPM_TIMEOUT_MS,
        work,
      )
      expect(status.code, status.stderr).toBe(0)
      expect(status.stdout).toContain(`http://127.0.0.1:${port}`)
    } finally {
      if (proc.exitCode === null && proc.pid !== undefined) process.kill(-proc.pid, 'SIGTERM')
      await exited
    }
  })
})
