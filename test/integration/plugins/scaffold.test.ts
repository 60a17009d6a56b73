// `bridge plugin create` end to end: scaffold -> the plugin's own `npm test` (bridge-plugin build,
// then node --test on the built adapter) -> a running daemon discovers it and /health lists its tools.
import { runCommand } from '../../helpers/runCommand'
import { chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPlugin, type CreateIo } from '../../../cli/commands/plugin/create'
import { CLI_JS, ROOT, startDaemon, type RunningDaemon } from '../../helpers/daemon'
import { tempDir } from '../../fixtures/plugins'

// These tests spawn processes (daemon, npm, builds); give them room on a loaded machine.
const SLOW = { timeout: 90_000 }

const quietIo: CreateIo = { interactive: false, ask: () => Promise.reject(new Error('not interactive')) }

const run = (command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv) =>
  runCommand(command, args, env, undefined, cwd)

describe('bridge plugin create', SLOW, () => {
  let tmp: ReturnType<typeof tempDir>
  let daemon: RunningDaemon
  let bin: string
  beforeAll(async () => {
    tmp = tempDir('scaffold')
    // `bridge-plugin` on PATH, as a global install of bridge provides it.
    bin = join(tmp.dir, 'bin')
    mkdirSync(bin)
    writeFileSync(
      join(bin, 'bridge-plugin'),
      `#!/bin/sh\nexec "${process.execPath}" "${join(ROOT, 'dist', 'cli', 'bridgePlugin.js')}" "$@"\n`,
    )
    chmodSync(join(bin, 'bridge-plugin'), 0o755)
    daemon = await startDaemon()
  })
  afterAll(async () => {
    await daemon?.stop()
    tmp?.cleanup()
  })

  it('scaffolds a plugin that passes its own test and that the daemon then serves', async () => {
    const dir = await createPlugin('my-site', { domain: 'my-site.example', dir: tmp.dir }, quietIo)
    expect(dir).toBe(join(tmp.dir, 'bridge-plugin-my-site'))

    const env = {
      ...process.env,
      PATH: `${bin}:${process.env.PATH}`,
      BRIDGE_CONFIG_DIR: daemon.configDir,
      BRIDGE_PORT: String(daemon.port),
      NO_COLOR: '1',
    }
    const test = await run('npm', ['test'], dir, env)
    expect(test.out).toMatch(/built my-site@0\.1\.0: 2 tools \(page_info, find_text\)/)
    expect(test.out).toMatch(/daemon reloaded in \d+ ms: 1 plugin, my-site loaded/)
    expect(test.out).toMatch(/# pass 4\n# fail 0/)
    expect(test.code).toBe(0)

    const health = (await (await daemon.fetch('/health')).json()) as {
      pluginDetails: Array<{ name: string; tools: string[]; source: string }>
    }
    expect(health.pluginDetails).toMatchObject([
      { name: 'my-site', tools: ['my-site_page_info', 'my-site_find_text'], source: 'local' },
    ])
    expect(JSON.parse(readFileSync(join(daemon.configDir, 'config.json'), 'utf8')).localPlugins).toEqual([
      dir,
    ])
  })

  it('scaffolds TypeScript that type-checks against the SDK', async () => {
    const dir = await createPlugin('typed', { domain: 'typed.example', dir: tmp.dir }, quietIo)
    const tsc = await run(
      process.execPath,
      [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(dir, 'tsconfig.json')],
      dir,
      process.env,
    )
    expect(tsc.out).toBe('')
    expect(tsc.code).toBe(0)
  })

  const pluginEnv = () => ({
    ...process.env,
    PATH: `${bin}:${process.env.PATH}`,
    BRIDGE_CONFIG_DIR: daemon.configDir,
    BRIDGE_PORT: String(daemon.port),
    NO_COLOR: '1',
  })
  /** What `npm install` gives the plugin folder: its devDependency typescript (linked from bridge's). */
  const installTypeScript = (dir: string) => {
    mkdirSync(join(dir, 'node_modules'))
    symlinkSync(join(ROOT, 'node_modules', 'typescript'), join(dir, 'node_modules', 'typescript'))
  }

  it('keeps passing its own test after the author replaces the example tools with one that reads the page', async () => {
    const dir = await createPlugin('edited', { domain: 'edited.example', dir: tmp.dir }, quietIo)
    installTypeScript(dir)
    writeFileSync(
      join(dir, 'src', 'index.ts'),
      [
        `import { definePlugin, defineTool, Type } from 'bridge/sdk'`,
        `const whoami = defineTool({`,
        `  name: 'whoami',`,
        `  description: 'The signed-in user.',`,
        `  input: Type.Object({}),`,
        `  handle: () => ({ user: document.querySelector('[data-user]')?.textContent ?? null }),`,
        `})`,
        `export default definePlugin({`,
        `  isReady: () => document.querySelector('[data-user]') !== null,`,
        `  tools: [whoami],`,
        `})`,
        ``,
      ].join('\n'),
    )
    const test = await run('npm', ['test'], dir, pluginEnv())
    expect(test.out).toMatch(/type-checked 1 file \(TypeScript 5\.\d+\.\d+\)/)
    expect(test.out).toMatch(/built edited@0\.1\.0: 1 tool \(whoami\)/)
    expect(test.out).toMatch(/# pass 2\n/)
    expect(test.out).toMatch(/# fail 0\n/)
    expect(test.out).toContain('page_info is no longer defined')
    expect(test.code).toBe(0)
  })

  it('fails the build on a type error and leaves the last good build in dist/', async () => {
    const dir = await createPlugin('typo', { domain: 'typo.example', dir: tmp.dir }, quietIo)
    installTypeScript(dir)
    const first = await run('npm', ['run', 'build'], dir, pluginEnv())
    expect(first.code).toBe(0)
    const built = readFileSync(join(dir, 'dist', 'adapter.iife.js'), 'utf8')
    const source = join(dir, 'src', 'index.ts')
    writeFileSync(
      source,
      readFileSync(source, 'utf8').replace(
        'return { count: body.split(input.text).length - 1 }',
        'return { count: body.split(input.txt).length - 1 }',
      ),
    )
    const broken = await run('npm', ['run', 'build'], dir, pluginEnv())
    expect(broken.code).not.toBe(0)
    expect(broken.out).toContain('build failed: type errors')
    expect(broken.out).toMatch(/src\/index\.ts\(\d+,\d+\): error TS2551: Property 'txt' does not exist/)
    expect(readFileSync(join(dir, 'dist', 'adapter.iife.js'), 'utf8')).toBe(built)
  })

  it('says the build is not type-checked until TypeScript is installed, and builds', async () => {
    const dir = await createPlugin('bare', { domain: 'bare.example', dir: tmp.dir }, quietIo)
    const build = await run('npm', ['run', 'build'], dir, pluginEnv())
    expect(build.out).toContain('not type-checked: TypeScript is not installed in the plugin folder')
    expect(build.code).toBe(0)
  })

  it('keeps the port of a local --domain, so the plugin matches only that server', async () => {
    const created = await run(
      process.execPath,
      [CLI_JS, 'plugin', 'create', 'local-app', '--domain', '127.0.0.1:8790', '--dir', tmp.dir],
      tmp.dir,
      pluginEnv(),
    )
    expect(created.code).toBe(0)
    const pkg = JSON.parse(readFileSync(join(tmp.dir, 'bridge-plugin-local-app', 'package.json'), 'utf8'))
    expect(pkg.bridge.urlPatterns).toEqual(['http://127.0.0.1:8790/*'])
  })

  it('asks for missing answers on a terminal, again after an invalid name', async () => {
    const answers = ['Bad Name', 'asked', 'asked.example', 'Asked Site', 'Made by a prompt']
    const questions: string[] = []
    const io: CreateIo = {
      interactive: true,
      ask: (message) => {
        questions.push(message)
        return Promise.resolve(answers.shift() ?? '')
      },
    }
    const dir = await createPlugin(undefined, { dir: tmp.dir }, io)
    expect(questions).toEqual([
      'Plugin name (lowercase, e.g. my-site)',
      'Plugin name (lowercase, e.g. my-site)',
      'Site domain the plugin works on (e.g. example.com)',
      'Display name',
      'One-line description',
    ])
    expect(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))).toMatchObject({
      name: 'bridge-plugin-asked',
      description: 'Made by a prompt',
      bridge: {
        displayName: 'Asked Site',
        urlPatterns: ['https://asked.example/*', 'https://*.asked.example/*'],
      },
    })
  })

  it('requires a name when there is no terminal to ask on', async () => {
    await expect(createPlugin(undefined, { dir: tmp.dir }, quietIo)).rejects.toThrow(
      'a plugin name is required: bridge plugin create <name> --domain <site>',
    )
  })

  it('refuses an invalid or reserved name and a folder that is in use', async () => {
    await expect(createPlugin('Not_Valid', { dir: tmp.dir }, quietIo)).rejects.toThrow(
      /must be lowercase letters and digits/,
    )
    await expect(createPlugin('extension', { dir: tmp.dir }, quietIo)).rejects.toThrow(
      /"extension" is reserved/,
    )
    mkdirSync(join(tmp.dir, 'bridge-plugin-taken'))
    writeFileSync(join(tmp.dir, 'bridge-plugin-taken', 'keep.txt'), 'mine')
    await expect(createPlugin('taken', { domain: 'x.example', dir: tmp.dir }, quietIo)).rejects.toThrow(
      /already exists and is not empty/,
    )
    expect(existsSync(join(tmp.dir, 'bridge-plugin-taken', 'package.json'))).toBe(false)
  })
})
