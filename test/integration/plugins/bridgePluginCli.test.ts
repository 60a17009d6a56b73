// The `bridge-plugin` and `bridge plugin list` programs as a user runs them: real processes, exit
// codes and the text they print.
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { delimiter, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ROOT, bridgeBinDir, startDaemon } from '../../helpers/daemon'
import { copyFixture, tempDir, type FixtureName } from '../../fixtures/plugins'

// These tests spawn processes (daemon, npm, builds); give them room on a loaded machine.
const SLOW = { timeout: 90_000 }

const PLUGIN_CLI = join(ROOT, 'dist', 'cli', 'bridgePlugin.js')
const BRIDGE_CLI = join(ROOT, 'dist', 'cli', 'bridge.js')

let tmp: ReturnType<typeof tempDir>
let configDir: string
beforeAll(() => {
  tmp = tempDir('cli')
  configDir = join(tmp.dir, 'config')
})
afterAll(() => tmp?.cleanup())

function env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {
    ...process.env,
    BRIDGE_CONFIG_DIR: configDir,
    NO_COLOR: '1',
    BRIDGE_SKIP_REGISTRY_DISCOVERY: '1',
    // `bridge` on PATH is this checkout's, as after an install: the CLI prints its commands as `bridge`.
    PATH: `${bridgeBinDir()}${delimiter}${process.env.PATH ?? ''}`,
  }
  // Nothing listens on port 1: "no daemon" is deterministic.
  out.BRIDGE_PORT = '1'
  return { ...out, ...extra }
}

function start(
  file: string,
  args: string[],
  cwd: string,
  extra?: NodeJS.ProcessEnv,
): { proc: ChildProcess; out: () => string; done: Promise<number | null> } {
  const proc = spawn(process.execPath, [file, ...args], {
    cwd,
    env: env(extra),
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  proc.stdout?.on('data', (c: Buffer) => (out += c.toString()))
  proc.stderr?.on('data', (c: Buffer) => (out += c.toString()))
  return { proc, out: () => out, done: new Promise((resolve) => proc.once('exit', (code) => resolve(code))) }
}

async function run(file: string, args: string[], cwd: string, extra?: NodeJS.ProcessEnv) {
  const child = start(file, args, cwd, extra)
  const code = await child.done
  return { code, out: child.out() }
}

describe('bridge-plugin build', SLOW, () => {
  it.each<[FixtureName, RegExp]>([
    ['bad-name', /build failed: .*package\.json: plugin name "Bad_Name" must be lowercase/],
    ['reserved-name', /build failed: .*plugin name "browser" is reserved/],
    ['bad-pattern', /build failed: .*"https:\/\/exa\*mple\.com\/\*" is not a valid match pattern/],
    ['missing-field', /build failed: .*"bridge\.displayName" is missing/],
    ['missing-entry', /build failed: entry file src\/main\.ts not found/],
    [
      'transform',
      /build failed: tool "schedule" input schema at "properties\.when": Type\.Transform cannot be serialized/,
    ],
  ])('exits 1 with a clear message for the %s fixture', async (fixture, message) => {
    const dir = copyFixture(fixture, tmp.dir)
    const result = await run(PLUGIN_CLI, ['build'], dir)
    expect(result.out).toMatch(message)
    expect(result.code).toBe(1)
  })

  it('names a broken package.json and where it breaks, before any type check', async () => {
    const dir = copyFixture('good', join(tmp.dir, 'broken-package'))
    writeFileSync(join(dir, 'package.json'), '{\n  "name": "bridge-plugin-good",\n  "version": "1.2.3",\n}\n')
    const result = await run(PLUGIN_CLI, ['build'], dir)
    expect(result.code).toBe(1)
    expect(result.out).toMatch(
      new RegExp(`build failed: ${join(dir, 'package.json')} is not valid JSON: .*\\(line 4,? column 1\\)`),
    )
    expect(result.out).not.toMatch(/type-checked|TypeScript|tsconfig/)
  })

  it('builds, registers once and says when no daemon runs', async () => {
    const dir = copyFixture('good', join(tmp.dir, 'ok'))
    const first = await run(PLUGIN_CLI, ['build'], dir)
    expect(first.code).toBe(0)
    expect(first.out).toMatch(
      /built good@1\.2\.3: 4 tools \(echo, refuse, crash, fetch_me\), adapter [\d.]+ KB in \d+ ms/,
    )
    expect(first.out).toContain(`registered ${dir} in ${join(configDir, 'config.json')} (localPlugins)`)
    expect(first.out).toContain('no bridge daemon on port 1; it will load good when it starts')
    const second = await run(PLUGIN_CLI, ['build', '--dir', dir], tmp.dir)
    expect(second.code).toBe(0)
    expect(second.out).not.toContain('registered')
    const config = JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8'))
    expect(config.localPlugins).toEqual([dir])
  })

  it('builds, but sends nothing and exits 1, when the daemon on the port cannot prove it knows this secret', async () => {
    const daemon = await startDaemon()
    try {
      // A config dir whose auth.json holds another secret than the daemon's.
      const otherConfig = join(tmp.dir, 'other-config')
      mkdirSync(join(otherConfig, 'extension'), { recursive: true })
      writeFileSync(join(otherConfig, 'extension', 'auth.json'), JSON.stringify({ secret: 'a'.repeat(64) }))
      const dir = copyFixture('good', join(tmp.dir, 'refused'))
      const result = await run(PLUGIN_CLI, ['build'], dir, {
        BRIDGE_CONFIG_DIR: otherConfig,
        BRIDGE_PORT: String(daemon.port),
      })
      expect(result.out).toContain('built good@')
      expect(result.out).toContain(
        `built, but did not ask for a reload: something else is listening on 127.0.0.1:${daemon.port}`,
      )
      expect(result.out).not.toContain('a'.repeat(64))
      expect(result.code).toBe(1)
      expect((await (await daemon.fetch('/health')).json()).reloadCount).toBe(0)
    } finally {
      await daemon.stop()
    }
  })

  it('fails when config.json cannot be updated, and only warns when auth.json is broken', async () => {
    const brokenConfig = join(tmp.dir, 'broken-config')
    mkdirSync(join(brokenConfig, 'extension'), { recursive: true })
    writeFileSync(join(brokenConfig, 'config.json'), '{ not json')
    const dir = copyFixture('good', join(tmp.dir, 'broken'))
    const refused = await run(PLUGIN_CLI, ['build'], dir, { BRIDGE_CONFIG_DIR: brokenConfig })
    expect(refused.code).toBe(1)
    expect(refused.out).toContain(`could not register ${dir} in ${join(brokenConfig, 'config.json')}: `)
    expect(readFileSync(join(brokenConfig, 'config.json'), 'utf8')).toBe('{ not json')

    writeFileSync(join(brokenConfig, 'config.json'), '{}')
    writeFileSync(join(brokenConfig, 'extension', 'auth.json'), 'garbage')
    const warned = await run(PLUGIN_CLI, ['build'], dir, { BRIDGE_CONFIG_DIR: brokenConfig })
    expect(warned.out).toMatch(
      /built, but could not ask the daemon to reload: .*auth\.json is not valid JSON/,
    )
    expect(warned.code).toBe(0)
  })

  it('--watch rebuilds when a source file changes', async () => {
    const dir = copyFixture('good', join(tmp.dir, 'watch'))
    const child = start(PLUGIN_CLI, ['build', '--watch', '--no-register', '--no-reload'], dir)
    try {
      await until(() => child.out().includes('watching'))
      writeFileSync(
        join(dir, 'src', 'shout.ts'),
        'export const shout = (text: string): string => `${text}?!`\n',
      )
      await until(() => (child.out().match(/built good@1\.2\.3/g) ?? []).length === 2)
      expect(child.out()).toMatch(/changed: src\/shout\.ts/)
      expect(readFileSync(join(dir, 'dist', 'adapter.iife.js'), 'utf8')).toContain('?!')
      writeFileSync(join(dir, 'src', 'shout.ts'), 'export const shout = (text: string) => {{\n')
      await until(() => child.out().includes('build failed: bundling src/index.ts failed'))
      expect(child.proc.exitCode).toBeNull()
    } finally {
      child.proc.kill('SIGTERM')
      await child.done
    }
  })
})

describe('bridge-plugin without a command', () => {
  it('prints help, its version, and refuses an unknown command', async () => {
    const help = await run(PLUGIN_CLI, [], tmp.dir)
    expect(help.code).toBe(0)
    expect(help.out).toMatch(/Usage:\n {2}\$ bridge-plugin <command> \[options\]/)
    expect(help.out).toMatch(/build +Build the plugin/)
    expect(help.out).toMatch(/inspect +Describe the last build/)
    expect((await run(PLUGIN_CLI, ['-V'], tmp.dir)).out).toMatch(/^bridge-plugin\/\d+\.\d+\.\d+/)
    const unknown = await run(PLUGIN_CLI, ['publish'], tmp.dir)
    expect(unknown.code).toBe(1)
    expect(unknown.out).toContain('unknown command "publish"; the commands are build and inspect')
  })
})

describe('bridge-plugin inspect', SLOW, () => {
  it('describes the build: versions, tools, fields and types', async () => {
    const dir = copyFixture('good', join(tmp.dir, 'inspect'))
    expect((await run(PLUGIN_CLI, ['build', '--no-register', '--no-reload'], dir)).code).toBe(0)
    const result = await run(PLUGIN_CLI, ['inspect'], dir)
    expect(result.code).toBe(0)
    expect(result.out).toContain('Good Fixture (good)\n  version      1.2.3\n  sdk version  1.0.0')
    expect(result.out).toContain('  tools        4')
    expect(result.out).toContain(
      [
        '  good_echo  Echo text',
        '    Repeat the text',
        '    input:',
        '      text: string  what to repeat',
        '      times?: integer',
        '      mode?: "plain" | "loud"',
        '      tags?: string[]',
        '    output:',
        '      text: string',
      ].join('\n'),
    )
    expect(result.out).toContain(
      '  good_refuse  Refuse\n    Always fails with a ToolError\n    input: (none)',
    )
    const json = await run(PLUGIN_CLI, ['inspect', '--json'], dir)
    expect(JSON.parse(json.out)).toEqual(JSON.parse(readFileSync(join(dir, 'dist', 'tools.json'), 'utf8')))
  })

  it('exits 1 and says to build first when there is no build', async () => {
    const dir = copyFixture('good', join(tmp.dir, 'unbuilt'))
    const result = await run(PLUGIN_CLI, ['inspect'], dir)
    expect(result.code).toBe(1)
    expect(result.out).toContain(
      `no build found (${join(dir, 'dist', 'tools.json')} is missing); run "bridge-plugin build" first`,
    )
  })
})

describe('bridge plugin create', SLOW, () => {
  it('shows its own options with --help', async () => {
    const help = await run(BRIDGE_CLI, ['plugin', 'create', '--help'], tmp.dir)
    expect(help.code).toBe(0)
    expect(help.out).toContain('$ bridge plugin create [name]')
    expect(help.out).toMatch(/--domain <domain> +Site the plugin works on/)
  })

  it('exits 1 without a name when there is no terminal, and creates the package with one', async () => {
    const missing = await run(BRIDGE_CLI, ['plugin', 'create'], tmp.dir)
    expect(missing.code).toBe(1)
    expect(missing.out).toContain('a plugin name is required: bridge plugin create <name> --domain <site>')
    const made = await run(
      BRIDGE_CLI,
      ['plugin', 'create', 'cli-made', '--domain', 'cli.example', '--dir', tmp.dir],
      tmp.dir,
    )
    expect(made.code).toBe(0)
    expect(made.out).toContain(`created bridge-plugin-cli-made in ${join(tmp.dir, 'bridge-plugin-cli-made')}`)
    expect(
      JSON.parse(readFileSync(join(tmp.dir, 'bridge-plugin-cli-made', 'package.json'), 'utf8')).bridge
        .urlPatterns,
    ).toEqual(['https://cli.example/*', 'https://*.cli.example/*'])
  })
})

describe('bridge plugin list', SLOW, () => {
  it('lists from config.json offline, and from the daemon when one runs', async () => {
    const dir = copyFixture('good', join(tmp.dir, 'listed'))
    expect((await run(PLUGIN_CLI, ['build', '--no-reload'], dir)).code).toBe(0)
    const offline = await run(BRIDGE_CLI, ['plugin', 'list', '--verbose'], tmp.dir)
    expect(offline.code).toBe(0)
    expect(offline.out).toContain('No daemon running; plugins that discovery finds:')
    expect(offline.out).toMatch(/ {2}good +Good Fixture {2}4 tools {2}local {2}sdk 1\.0\.0\n {6}good_echo\n/)

    const daemon = await startDaemon({ configDir })
    try {
      const online = await run(BRIDGE_CLI, ['plugin', 'ls', '--json'], tmp.dir, {
        BRIDGE_PORT: String(daemon.port),
      })
      expect(online.code).toBe(0)
      const list = JSON.parse(online.out)
      expect(list.online).toBe(true)
      expect(
        list.plugins.map((p: { name: string; tabState: string }) => [p.name, p.tabState]),
      ).toContainEqual(['good', 'closed'])
    } finally {
      await daemon.stop()
    }
  })
})

async function until(check: () => boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not reached')
    await new Promise((r) => setTimeout(r, 50))
  }
}
