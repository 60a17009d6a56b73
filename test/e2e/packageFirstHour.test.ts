// The first hour of a package user, with bridge installed from a real npm registry (verdaccio on
// loopback) as `npm i -g` installs it, and nothing from this checkout: one daemon per config folder
// (a second start on another port names the first and exits 1; `bridge stop` stops a foreground
// start), an agent that sees no tool is told why (the MCP instructions), the banner ends with the
// command that turns the core browser tools on, `bridge doctor` counts the tools a client sees, and
// `bridge start --dev` is a listed flag; the README's package commands run word for word (the
// install, `bridge start`, and the walk-through's `npx -y @bridge-mcp/bridge start` and `demo`), `bridge
// demo` serves the demo site and installs its plugin from the package; a broken config.json is named
// with its line and column and the backup taken before the last write puts it back; npm's note about
// esbuild's install script is the one the README explains. One pack (of the checkout's build), one
// registry and one install serve every case.
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
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
const README = readFileSync(join(ROOT, 'README.md'), 'utf8')

/** The commands of the README's first ```sh block after `heading`, each without its comment. */
function readmeCommands(heading: string): string[] {
  const from = README.indexOf(heading)
  const block = /```sh\n([\s\S]*?)```/.exec(README.slice(from))?.[1] ?? ''
  return block
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter(Boolean)
}

/** A long-running command of the README, in a shell as a person types it; its output collected. */
function runLong(line: string, env: NodeJS.ProcessEnv, cwd: string) {
  const proc: ChildProcess = spawn('sh', ['-c', line], {
    cwd,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  })
  let out = ''
  proc.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')))
  proc.stderr?.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')))
  const exited = new Promise<number | null>((resolve) => proc.once('exit', resolve))
  return {
    proc,
    exited,
    output: () => out,
    stop: async () => {
      if (proc.exitCode === null && proc.pid !== undefined) process.kill(-proc.pid, 'SIGTERM')
      await exited
    },
  }
}

describe('the first hour with the published package', { timeout: REGISTRY_TEST_TIMEOUT_MS }, () => {
  let registry: TestRegistry
  let work: string
  let packed: PackedBridge
  let configDir: string
  let installStderr = ''
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
    // The mirror of the dependencies does not wait for the pack; the pack takes the checkout's build.
    const mirrored = registry.mirror(join(ROOT, 'node_modules'), runtimeDependencyClosure())
    packed = await packBridge(work, { prebuilt: true })
    await Promise.all([mirrored, registry.publish(packed.dir, { name: PACKAGE, version: packed.version })])
    // The README's first screen for a package user, word for word: `npm install -g @bridge-mcp/bridge`.
    const [installLine = ''] = readmeCommands('**To use bridge without a checkout**')
    expect(installLine).toBe(`npm install -g ${PACKAGE}`)
    const install = await runCommand('sh', ['-c', installLine], env(), REGISTRY_NPM_TIMEOUT_MS, work)
    installStderr = install.stderr
    expect(install.code, install.stderr).toBe(0)
  }, REGISTRY_TEST_TIMEOUT_MS)
  afterAll(async () => {
    await bridge(['stop']).catch(() => undefined)
    await registry?.close()
    for (const dir of [work, configDir]) if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it('runs one daemon per config folder, tells an agent with no tool why, and stops a foreground start', async () => {
    const port = await freePort()
    // A foreground `bridge start`, the README's first screen word for word (BRIDGE_PORT for 9515).
    const startLine = readmeCommands('**To use bridge without a checkout**')[1]
    expect(startLine).toBe('bridge start')
    const proc = spawn(bin(), ['start'], {
      cwd: work,
      env: env({ BRIDGE_PORT: String(port) }),
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

  it("runs the README's walk-through: `npx -y @bridge-mcp/bridge start`, then `demo` serves the site and installs its plugin from the package", async () => {
    const [startLine = '', demoLine = ''] = readmeCommands('## Five minutes with the demo site')
    expect([startLine, demoLine]).toEqual([`npx -y ${PACKAGE} start`, `npx -y ${PACKAGE} demo`])
    const port = await freePort()
    const sitePort = await freePort()
    const userEnv = env({ BRIDGE_PORT: String(port) })
    // Word for word; the site on a free port instead of 8787, which may be taken on this machine.
    const daemon = runLong(startLine, userEnv, work)
    let demo: ReturnType<typeof runLong> | undefined
    try {
      await expect
        .poll(daemon.output, { timeout: REGISTRY_NPM_TIMEOUT_MS, interval: 250 })
        .toContain('Load unpacked')
      // The second terminal, once the first says the daemon runs.
      demo = runLong(`${demoLine} --site-port ${sitePort}`, userEnv, work)
      const site = `http://127.0.0.1:${sitePort}`
      await expect
        .poll(() => demo?.output(), { timeout: REGISTRY_NPM_TIMEOUT_MS, interval: 250 })
        .toContain(`The demo notes site runs on ${site}`)
      const out = demo.output()
      const pluginDir = join(configDir, 'demo', 'notes-plugin')
      expect(out).toContain(
        `Installed the demo plugin Demo Notes (notes: 5 tools) from this package into ${pluginDir}`,
      )
      expect(out).toContain(`The daemon on port ${port} loaded it.`)
      expect(out).toContain(`Load unpacked: ${join(configDir, 'extension')}`)
      expect(out).toContain(`Open ${site} in that browser and sign in with any name.`)
      expect(out).toContain('config set plugin-permission.notes ask`')
      // The site answers on loopback; the plugin matches its port and no other.
      const me = await fetch(`${site}/api/me`)
      expect([me.status, await me.json()]).toEqual([401, { error: 'not signed in' }])
      const health = JSON.parse(
        (await bridge(['status', '--json'], { BRIDGE_PORT: String(port) })).stdout,
      ) as { pluginDetails: { name: string }[] }
      expect(health.pluginDetails.map((p) => p.name)).toContain('notes')
      const manifest = JSON.parse(readFileSync(join(pluginDir, 'dist', 'tools.json'), 'utf8')) as {
        urlPatterns: string[]
      }
      expect(manifest.urlPatterns).toEqual([`${site}/*`, `http://localhost:${sitePort}/*`])
      // The next step as printed: its tools on, an agent with the banner's configuration sees them.
      const on = await bridge(['config', 'set', 'plugin-permission.notes', 'ask'], {
        BRIDGE_PORT: String(port),
      })
      expect(on.code, on.stderr).toBe(0)
      // Not the first run of this folder: `bridge client show default --show-secret` prints the configuration.
      const shown = await bridge(['client', 'show', 'default', '--show-secret'], {
        BRIDGE_PORT: String(port),
      })
      const mcp = bannerMcpConfig(shown.stdout)
      const client = await connectMcp({ url: `http://127.0.0.1:${port}`, secret: mcp.token }, 'demo')
      try {
        const names = (await client.client.listTools()).tools.map((t) => t.name)
        expect(names).toEqual(
          expect.arrayContaining(['notes_list_notes', 'notes_create_note', 'notes_whoami']),
        )
      } finally {
        await client.close()
      }
    } finally {
      await demo?.stop()
      await daemon.stop()
    }
  })

  it('names a broken config.json with its line and column, and puts back the copy taken before the last write', async () => {
    const file = join(configDir, 'config.json')
    const backup = `${file}.bak`
    // The last case's `config set` wrote config.json: the file as it was before is in the backup.
    expect(statSync(backup).mode & 0o777).toBe(0o600)
    const before = readFileSync(backup, 'utf8')
    const set = await bridge(['config', 'set', 'port', '9555'])
    expect(set.code, set.stderr).toBe(0)
    expect(readFileSync(backup, 'utf8')).not.toBe(before)
    const good = readFileSync(file, 'utf8')
    expect(JSON.parse(readFileSync(backup, 'utf8'))).not.toEqual(JSON.parse(good))

    writeFileSync(file, '{\n  "port": 9515,\n}\n')
    const start = await bridge(['start', '--port', String(await freePort())])
    expect(start.code).toBe(1)
    const [first = '', ...rest] = start.stderr.trim().split('\n')
    expect(rest).toEqual([])
    expect(first).toMatch(
      new RegExp(
        `^bridge: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is not valid JSON: .*\\(line 3,? column 1\\)`,
      ),
    )
    const restore = /`(cp [^`]+)` puts it back/.exec(first)?.[1]
    expect(restore).toBe(`cp ${backup} ${file}`)
    // Every error has one `bridge:` prefix, never two.
    const status = await bridge(['status'])
    expect(status.code).toBe(1)
    expect(status.stderr).toMatch(/^bridge: /)
    expect(status.stderr).not.toMatch(/bridge: bridge/)

    expect((await runCommand('sh', ['-c', restore ?? 'false'], env(), CLI_TIMEOUT_MS, work)).code).toBe(0)
    const show = await bridge(['config', 'show', '--json'])
    expect(show.code, show.stderr).toBe(0)
  })

  it("says nothing at install that the README does not explain: npm's note on esbuild's install script", () => {
    const noted = installStderr
      .split('\n')
      .filter((line) => /^npm warn install-scripts\s+\S+@\S+ \(/.test(line))
      .map((line) => /^npm warn install-scripts\s+(\S+)@/.exec(line)?.[1])
    // npm before 11.16 says nothing; a newer one names esbuild alone, which the README explains.
    for (const name of noted) expect(name).toBe('esbuild')
    const warnings = installStderr.split('\n').filter((line) => /^npm warn/.test(line))
    expect(warnings.filter((line) => !line.startsWith('npm warn install-scripts'))).toEqual([])
    expect(README).toContain('npm warn install-scripts ... esbuild@<version>\n(postinstall: node install.js)')
    expect(README).toContain(`npm install -g ${PACKAGE} --allow-scripts=esbuild`)
  })
})
