// The first hour of a package user, with bridge installed from a real npm registry (verdaccio on
// loopback) as `npm i -g` installs it, and nothing from this checkout: one daemon per config folder
// (a second start on another port names the first and exits 1; `bridge stop` stops a foreground
// start), an agent that sees no tool is told why (the MCP instructions), the banner ends with the
// command that turns the core browser tools on, `bridge doctor` counts the tools a client sees, and
// `bridge start --dev` is a listed flag.
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ROOT, daemonEnv, tempConfigDir } from '../helpers/daemon'
import { connectMcp } from '../helpers/mcpClient'
import { startRegistry, type TestRegistry } from '../helpers/registry'
import { REGISTRY_NPM_TIMEOUT_MS, REGISTRY_TEST_TIMEOUT_MS, scaled } from '../helpers/timing'
import {
  bannerMcpConfig,
  freePort,
  packBridge,
  runCommand,
  runtimeDependencyClosure,
  type PackedBridge,
} from './support/packedBridge'

const PACKAGE = '@bridge-mcp/bridge'
const CLI_TIMEOUT_MS = scaled(60_000)

describe('the first hour with the published package', { timeout: REGISTRY_TEST_TIMEOUT_MS }, () => {
  let registry: TestRegistry
  let work: string
  let packed: PackedBridge
  let configDir: string
  const bin = () => join(registry.prefix, 'bin', 'bridge')
  const env = (extra: Record<string, string | undefined> = {}) =>
    daemonEnv(configDir, 'node', {
      ...registry.env(),
      PATH: `${join(registry.prefix, 'bin')}${delimiter}${process.env.PATH ?? ''}`,
      PORT: undefined,
      BRIDGE_SKIP_REGISTRY_DISCOVERY: undefined,
      ...extra,
    })
  const bridge = (args: string[], extra: Record<string, string | undefined> = {}) =>
    runCommand(bin(), args, env(extra), CLI_TIMEOUT_MS, work)

  beforeAll(async () => {
    registry = await startRegistry()
    work = mkdtempSync(join(tmpdir(), 'bridge-first-hour-'))
    configDir = tempConfigDir()
    packed = await packBridge(work)
    await registry.mirror(join(ROOT, 'node_modules'), runtimeDependencyClosure())
    await registry.publish(packed.dir, { name: PACKAGE, version: packed.version })
    const install = await runCommand(
      'npm',
      ['install', '--global', '--no-audit', '--no-fund', PACKAGE],
      env(),
      REGISTRY_NPM_TIMEOUT_MS,
    )
    expect(install.code, install.stderr).toBe(0)
  }, REGISTRY_TEST_TIMEOUT_MS)
  afterAll(async () => {
    await bridge(['stop']).catch(() => undefined)
    await registry?.close()
    for (const dir of [work, configDir]) if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it('runs one daemon per config folder, tells an agent with no tool why, and stops a foreground start', async () => {
    const port = await freePort()
    // A foreground `bridge start`, as in the README's first screen.
    const proc = spawn(bin(), ['start', '--port', String(port)], {
      cwd: work,
      env: env(),
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    proc.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')))
    proc.stderr.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')))
    const exited = new Promise<number | null>((resolve) => proc.once('exit', resolve))
    try {
      await expect
        .poll(() => out, { timeout: CLI_TIMEOUT_MS, interval: 200 })
        .toContain('plugin-permission.browser ask`')
      // The banner ends with the one command that turns the core browser tools on.
      expect(out.trim().endsWith('`bridge config set plugin-permission.browser ask`')).toBe(true)

      // A second start on another port: refused, naming the running daemon and how to stop it.
      const second = await bridge(['start', '--port', String(await freePort())])
      expect(second.code).toBe(1)
      expect(second.stderr).toContain(
        `bridge: bridge ${packed.version} is already running for ${configDir} (pid ${proc.pid}, port ${port}, since `,
      )
      expect(second.stderr).toContain('`bridge stop` stops it')

      // An agent with the banner's configuration sees no tool and is told why.
      const mcp = bannerMcpConfig(out)
      const client = await connectMcp({ url: mcp.url.replace(/\/mcp$/, ''), secret: mcp.token }, 'first')
      try {
        expect((await client.client.listTools()).tools).toEqual([])
        expect(client.client.getInstructions()).toContain('no tools are on yet')
        expect(client.client.getInstructions()).toContain('side panel')
      } finally {
        await client.close()
      }
      const doctor = await bridge(['doctor'])
      expect(doctor.stdout).toContain('! MCP client "default" sees 0 tools')
      const on = await bridge(['config', 'set', 'plugin-permission.browser', 'ask'])
      expect(on.code, on.stderr).toBe(0)
      expect(on.stdout).toContain('the running daemon re-read config.json')
      expect((await bridge(['doctor'])).stdout).toMatch(/✓ MCP client "default" sees [1-9]\d* tools/)

      // `bridge stop` stops the daemon started in the foreground, through the folder's lock.
      const stopped = await bridge(['stop'])
      expect(stopped.code, stopped.stderr).toBe(0)
      expect(stopped.stdout).toBe(`bridge stopped (pid ${proc.pid}, port ${port})\n`)
      expect(await exited).toBe(0)
    } finally {
      if (proc.exitCode === null) proc.kill('SIGKILL')
    }
  })

  it('lists `--dev` in `bridge start --help`', async () => {
    const help = await bridge(['start', '--help'])
    expect(help.stdout).toMatch(/--dev\s+Plugin development: watch local plugins/)
    expect(
      readFileSync(join(registry.prefix, 'lib', 'node_modules', PACKAGE, 'package.json'), 'utf8'),
    ).toContain(packed.version)
  })
})
