// Discovery over real folders: a temp config dir, local plugin folders, and a temp npm prefix
// (NPM_CONFIG_PREFIX) whose global root holds package plugins; `npm root -g` is the real npm.
import { createHash } from 'node:crypto'
import { cpSync, existsSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { buildPlugin } from '../../../src/build/buildPlugin'
import { discoverPlugins } from '../../../src/plugins'
import { copyFixture, copyPlugin, FIXTURES_DIR, NOTES_PLUGIN_DIR, tempDir } from '../../fixtures/plugins'

let tmp: ReturnType<typeof tempDir>
let goodBuilt: string
let notesBuilt: string
let configDir: string
let prefix: string
let globalRoot: string
let locals: string

beforeAll(async () => {
  tmp = tempDir('discover')
  goodBuilt = copyFixture('good', join(tmp.dir, 'built'))
  await buildPlugin(goodBuilt)
  notesBuilt = copyPlugin(NOTES_PLUGIN_DIR, join(tmp.dir, 'built'), 'notes')
  await buildPlugin(notesBuilt)
})
afterAll(() => tmp?.cleanup())

let run = 0
beforeEach(() => {
  run++
  configDir = join(tmp.dir, `config-${run}`)
  prefix = join(tmp.dir, `prefix-${run}`)
  globalRoot = join(prefix, 'lib', 'node_modules')
  locals = join(tmp.dir, `locals-${run}`)
  mkdirSync(globalRoot, { recursive: true })
  mkdirSync(locals, { recursive: true })
})

const env = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  ...process.env,
  NPM_CONFIG_PREFIX: prefix,
  ...extra,
})
const install = (built: string, packageName: string) =>
  cpSync(built, join(globalRoot, packageName), { recursive: true })
const local = (built: string, name: string) => {
  const dir = join(locals, name)
  cpSync(built, dir, { recursive: true })
  return dir
}
const discover = (localPlugins: string[], extraEnv?: NodeJS.ProcessEnv) =>
  discoverPlugins({ configDir, config: { localPlugins }, env: env(extraEnv) })

/** A local plugin folder whose dist/tools.json is `manifest` (adapter bundle copied from the good build). */
function handMade(name: string, manifest: unknown): string {
  const dir = join(locals, name)
  mkdirSync(join(dir, 'dist'), { recursive: true })
  writeFileSync(
    join(dir, 'dist', 'tools.json'),
    typeof manifest === 'string' ? manifest : JSON.stringify(manifest),
  )
  cpSync(join(goodBuilt, 'dist', 'adapter.iife.js'), join(dir, 'dist', 'adapter.iife.js'))
  return dir
}
const goodManifest = () =>
  JSON.parse(readFileSync(join(goodBuilt, 'dist', 'tools.json'), 'utf8')) as Record<string, unknown> & {
    tools: Record<string, unknown>[]
  }

describe('discoverPlugins', () => {
  it('loads a local plugin and copies its adapter into the config dir (0700 dirs, 0600 file)', async () => {
    const dir = local(goodBuilt, 'good')
    const snapshot = await discover([dir])
    expect(snapshot.failedPlugins).toEqual([])
    expect(snapshot.discoveryErrors).toEqual([])
    expect(snapshot.plugins).toHaveLength(1)
    const plugin = snapshot.plugins[0]!
    const bundle = readFileSync(join(dir, 'dist', 'adapter.iife.js'))
    expect(plugin).toMatchObject({
      name: 'good',
      displayName: 'Good Fixture',
      version: '1.2.3',
      source: 'local',
      path: dir,
      sdkVersion: '1.0.0',
      urlPatterns: ['https://example.com/*', 'http://127.0.0.1/*'],
      adapterFile: 'good.js',
      adapterHash: createHash('sha256').update(bundle).digest('hex'),
    })
    expect(plugin.iconSvg).toContain('<svg')
    expect(plugin.tools.map((t) => t.name)).toEqual(['echo', 'refuse', 'crash', 'fetch_me'])
    const copied = join(configDir, 'extension', 'adapters', 'good.js')
    expect(readFileSync(copied).equals(bundle)).toBe(true)
    expect(statSync(copied).mode & 0o777).toBe(0o600)
    expect(statSync(join(configDir, 'extension', 'adapters')).mode & 0o777).toBe(0o700)
    expect(statSync(join(configDir, 'extension')).mode & 0o777).toBe(0o700)
  })

  it('validates tool input with the compiled schema', async () => {
    const [plugin] = (await discover([local(goodBuilt, 'good')])).plugins
    expect(plugin!.validate('echo', { text: 'hi', times: 2, mode: 'loud' })).toEqual({ ok: true })
    expect(plugin!.validate('echo', { times: 9 })).toEqual({
      ok: false,
      message: 'text is required; times must be <= 3',
    })
    expect(plugin!.validate('echo', { text: '' })).toEqual({
      ok: false,
      message: 'text must NOT have fewer than 1 characters',
    })
    expect(plugin!.validate('echo', { text: 'a', tags: ['x', 2] })).toEqual({
      ok: false,
      message: 'tags.1 must be string',
    })
    expect(plugin!.validate('nope', {})).toEqual({ ok: false, message: 'no tool "nope"' })
  })

  it('finds global packages bridge-plugin-* and @scope/bridge-plugin-* under the npm prefix', async () => {
    install(notesBuilt, 'bridge-plugin-notes')
    mkdirSync(join(globalRoot, '@acme'), { recursive: true })
    install(goodBuilt, '@acme/bridge-plugin-good')
    install(goodBuilt, 'not-a-bridge-plugin')
    const snapshot = await discover([])
    expect(snapshot.discoveryErrors).toEqual([])
    expect(snapshot.plugins.map((p) => [p.name, p.source, p.path])).toEqual([
      ['good', 'npm', join(globalRoot, '@acme', 'bridge-plugin-good')],
      ['notes', 'npm', join(globalRoot, 'bridge-plugin-notes')],
    ])
    expect(existsSync(join(configDir, 'extension', 'adapters', 'notes.js'))).toBe(true)
  })

  it('follows a linked package (npm link) in the global root', async () => {
    const linked = local(notesBuilt, 'linked-notes')
    symlinkSync(linked, join(globalRoot, 'bridge-plugin-notes'), 'dir')
    const snapshot = await discover([])
    expect(snapshot.plugins.map((p) => [p.name, p.source, p.path])).toEqual([
      ['notes', 'npm', join(globalRoot, 'bridge-plugin-notes')],
    ])
  })

  it('lets a local plugin override a package plugin of the same name', async () => {
    install(goodBuilt, 'bridge-plugin-good')
    const dir = local(goodBuilt, 'my-good')
    const snapshot = await discover([dir])
    expect(snapshot.plugins.map((p) => [p.name, p.source, p.path])).toEqual([['good', 'local', dir]])
    expect(snapshot.failedPlugins).toEqual([])
  })

  it('skips package discovery with BRIDGE_SKIP_REGISTRY_DISCOVERY=1', async () => {
    install(notesBuilt, 'bridge-plugin-notes')
    const snapshot = await discover([], { BRIDGE_SKIP_REGISTRY_DISCOVERY: '1' })
    expect(snapshot.plugins).toEqual([])
    expect(snapshot.discoveryErrors).toEqual([])
  })

  it('reports npm that cannot run as a discovery error and still loads local plugins', async () => {
    const snapshot = await discover([local(goodBuilt, 'good')], { PATH: join(tmp.dir, 'no-such-bin') })
    expect(snapshot.plugins.map((p) => p.name)).toEqual(['good'])
    expect(snapshot.discoveryErrors).toHaveLength(1)
    expect(snapshot.discoveryErrors[0]).toMatchObject({ source: 'npm' })
    expect(snapshot.discoveryErrors[0]!.message).toMatch(
      /^could not list global npm packages \(.*\); package plugins were skipped/,
    )
  })

  it('isolates broken plugins and says what to fix', async () => {
    const good = local(goodBuilt, 'good')
    const notBuilt = copyPlugin(join(FIXTURES_DIR, 'good'), locals, 'unbuilt')
    const missing = join(locals, 'does-not-exist')
    const cases: Array<[string, unknown, RegExp]> = [
      ['bad-json', '{ nope', /^dist\/tools\.json is not valid JSON \(.*\); run "bridge-plugin build" in /],
      [
        'no-version',
        { ...goodManifest(), name: 'noversion', version: undefined },
        /^dist\/tools\.json is invalid: version is required/,
      ],
      [
        'bad-tools',
        { ...goodManifest(), name: 'badtools', tools: [{ name: 'x' }] },
        /^dist\/tools\.json is invalid: tools\.0\.\w+ is required/,
      ],
      ['reserved', { ...goodManifest(), name: 'extension' }, /^plugin name "extension" is reserved/],
      ['bad-name', { ...goodManifest(), name: 'Has_Underscore' }, /^plugin name "Has_Underscore" is invalid/],
      [
        'bad-tool',
        { ...goodManifest(), name: 'badtool', tools: [{ ...goodManifest().tools[0], name: 'Echo' }] },
        /^tool name "Echo" is invalid/,
      ],
      [
        'old-sdk',
        { ...goodManifest(), name: 'oldsdk', sdkVersion: '0.9.0' },
        /^built with SDK 0\.9\.0, but this bridge runs SDK 1\.0\.0; run "bridge-plugin build"/,
      ],
      [
        'bad-icon',
        { ...goodManifest(), name: 'badicon', iconSvg: '<svg><script>alert(1)</script></svg>' },
        /^the icon contains active content/,
      ],
      [
        'bad-schema',
        {
          ...goodManifest(),
          name: 'badschema',
          tools: [{ ...goodManifest().tools[0], inputSchema: { type: 'object', propertees: {} } }],
        },
        /^tool "echo" input schema: strict mode: unknown keyword: "propertees"; fix the schema/,
      ],
    ]
    const dirs = cases.map(([name, manifest]) => handMade(name, manifest))
    const duplicate = local(goodBuilt, 'good-again')
    const snapshot = await discover([missing, notBuilt, good, ...dirs, duplicate])

    expect(snapshot.plugins.map((p) => p.name)).toEqual(['good'])
    const errorFor = (path: string) => snapshot.failedPlugins.find((f) => f.path === path)?.error
    expect(errorFor(missing)).toBe('folder does not exist; remove it from localPlugins or restore it')
    expect(errorFor(notBuilt)).toBe(
      `not built: dist/tools.json is missing; run "bridge-plugin build" in ${notBuilt}`,
    )
    cases.forEach(([, , expected], i) => expect(errorFor(dirs[i]!)).toMatch(expected))
    expect(errorFor(duplicate)).toBe(
      `another local plugin already uses the name "good" (${good}); remove or rename one`,
    )
    expect(snapshot.failedPlugins).toHaveLength(cases.length + 3)
  })

  it('resolves ./ entries against the config dir and removes adapters of plugins that are gone', async () => {
    local(goodBuilt, 'good')
    local(notesBuilt, 'notes')
    mkdirSync(configDir, { recursive: true })
    const relative = (name: string) => `../locals-${run}/${name}`
    const first = await discover([relative('good'), relative('notes')])
    expect(first.plugins.map((p) => p.path)).toEqual([join(locals, 'good'), join(locals, 'notes')])
    const adapters = join(configDir, 'extension', 'adapters')
    expect(existsSync(join(adapters, 'notes.js'))).toBe(true)
    await discover([relative('good')])
    expect(existsSync(join(adapters, 'notes.js'))).toBe(false)
    expect(existsSync(join(adapters, 'good.js'))).toBe(true)
  })
})
