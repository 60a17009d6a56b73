// Discovery over real folders: a temp config dir, local plugin folders, and a temp npm prefix
// (NPM_CONFIG_PREFIX) whose global root holds package plugins; `npm root -g` is the real npm.
import { createHash } from 'node:crypto'
import {
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { buildPlugin } from '../../../src/authoring/buildPlugin'
import { discoverPlugins } from '../../../src/plugins'
import { createPluginLoadCache } from '../../../src/plugins/loadCache'
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
/** Copies a build into the global root as npm would install it: package.json named `packageName`. */
const install = (built: string, packageName: string) => {
  const dir = join(globalRoot, packageName)
  cpSync(built, dir, { recursive: true })
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Record<string, unknown>
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ ...pkg, name: packageName }))
  return dir
}
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
  const named = (manifest as { name?: unknown } | null)?.name
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({
      name: `bridge-plugin-${typeof named === 'string' ? named.toLowerCase() : name}`,
      version: '1.0.0',
    }),
  )
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

  it("checks schemas at load but compiles a tool's validator only when the tool is first used", async () => {
    const manifest = goodManifest()
    manifest.tools.push({
      ...manifest.tools[0]!,
      name: 'dangling',
      // Well-formed and only known keywords, but the $ref points nowhere: only compiling finds that.
      inputSchema: { type: 'object', properties: { a: { $ref: '#/definitions/missing' } } },
    })
    const [plugin] = (await discover([handMade('lazy', { ...manifest, name: 'lazy' })])).plugins
    expect(plugin!.name).toBe('lazy')
    expect(plugin!.validate('echo', { text: 'hi' })).toEqual({ ok: true })
    const dangling = plugin!.validate('dangling', { a: 1 })
    expect(dangling.ok).toBe(false)
    expect(dangling.ok ? '' : dangling.message).toMatch(
      /^tool "dangling" input schema: can't resolve reference #\/definitions\/missing.*; the plugin must fix the schema$/,
    )
  })

  it('refuses at load a schema with an unknown keyword deep inside or an unknown format', async () => {
    const withTool = (name: string, inputSchema: unknown) => {
      const manifest = goodManifest()
      return handMade(name, { ...manifest, name, tools: [{ ...manifest.tools[0]!, inputSchema }] })
    }
    const deep = withTool('deep', {
      type: 'object',
      properties: { list: { type: 'array', items: { anyOf: [{ type: 'string', maxLenght: 3 }] } } },
    })
    const format = withTool('format', {
      type: 'object',
      properties: { at: { type: 'string', format: 'dat' } },
    })
    const malformed = withTool('malformed', { type: 'object', properties: { n: { type: 'integr' } } })
    const snapshot = await discover([deep, format, malformed])
    const errorFor = (path: string) => snapshot.failedPlugins.find((f) => f.path === path)?.error
    expect(errorFor(deep)).toMatch(/^tool "echo" input schema: strict mode: unknown keyword: "maxLenght"/)
    expect(errorFor(format)).toMatch(/^tool "echo" input schema: unknown format "dat"/)
    expect(errorFor(malformed)).toMatch(/^tool "echo" input schema: schema is invalid: /)
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
    // Said out loud, naming both packages: the override does not inherit the package's review.
    expect(snapshot.discoveryErrors).toEqual([
      {
        source: 'local',
        path: dir,
        message:
          'the local plugin "good" (@acme/bridge-plugin-good) is used instead of the installed package bridge-plugin-good; unless it is the same package and build, it needs a review before its tools run',
      },
    ])
  })

  it('names a plugin by its package: a build that names another plugin is refused', async () => {
    const real = install(notesBuilt, '@bridge-mcp/bridge-plugin-notes')
    const impostor = install(notesBuilt, '@aaa/bridge-plugin-zzz')
    const snapshot = await discover([])
    expect(snapshot.plugins.map((p) => [p.name, p.packageName, p.path])).toEqual([
      ['notes', '@bridge-mcp/bridge-plugin-notes', real],
    ])
    expect(snapshot.failedPlugins).toEqual([
      {
        path: impostor,
        error:
          'dist/tools.json names the plugin "notes", but the package @aaa/bridge-plugin-zzz is the plugin "zzz"; a plugin\'s name is its package\'s, so it was not loaded',
      },
    ])
  })

  it('refuses an installed package whose package.json claims another package or plugin name', async () => {
    const liar = install(notesBuilt, 'bridge-plugin-notes')
    const pkgFile = join(liar, 'package.json')
    const pkg = JSON.parse(readFileSync(pkgFile, 'utf8')) as Record<string, unknown>
    writeFileSync(pkgFile, JSON.stringify({ ...pkg, name: '@bridge-mcp/bridge-plugin-notes' }))
    const renamed = install(notesBuilt, 'bridge-plugin-other')
    writeFileSync(
      join(renamed, 'package.json'),
      JSON.stringify({
        ...pkg,
        name: 'bridge-plugin-other',
        bridge: { ...(pkg.bridge as object), name: 'notes' },
      }),
    )
    const snapshot = await discover([])
    expect(snapshot.plugins).toEqual([])
    const errorFor = (path: string) => snapshot.failedPlugins.find((f) => f.path === path)?.error
    expect(errorFor(liar)).toBe(
      'package.json names the package "@bridge-mcp/bridge-plugin-notes", but it is installed as bridge-plugin-notes',
    )
    expect(errorFor(renamed)).toBe(
      'package.json "bridge.name" is "notes", but the package bridge-plugin-other is the plugin "other"; an installed plugin is named by its package',
    )
  })

  it('refuses both of two packages that would load under one name, naming both', async () => {
    const scoped = install(notesBuilt, '@aaa/bridge-plugin-notes')
    const unscoped = install(notesBuilt, 'bridge-plugin-notes')
    const snapshot = await discover([])
    expect(snapshot.plugins).toEqual([])
    const message = `the packages @aaa/bridge-plugin-notes (${scoped}) and bridge-plugin-notes (${unscoped}) would both load as the plugin "notes"; neither was loaded, so neither runs under the other's permissions: uninstall one of them`
    expect(snapshot.failedPlugins).toEqual([
      { path: scoped, error: message },
      { path: unscoped, error: message },
    ])
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

  describe("with the daemon's cache across reloads", () => {
    const cached = () => ({ plugins: createPluginLoadCache(), adapterCopies: new Map<string, string>() })

    it('reuses plugins whose build files are unchanged and re-reads the one that changed', async () => {
      const good = local(goodBuilt, 'good')
      const notes = local(notesBuilt, 'notes')
      const cache = cached()
      const run1 = await discoverPlugins({
        configDir,
        config: { localPlugins: [good, notes] },
        env: env(),
        cache,
      })
      const run2 = await discoverPlugins({
        configDir,
        config: { localPlugins: [good, notes] },
        env: env(),
        cache,
      })
      // The very same objects: nothing was read, hashed or compiled again.
      expect(run2.plugins[0]).toBe(run1.plugins[0])
      expect(run2.plugins[1]).toBe(run1.plugins[1])

      const manifest = goodManifest()
      manifest.tools.push({ ...manifest.tools[0]!, name: 'added_later' })
      writeFileSync(join(good, 'dist', 'tools.json'), JSON.stringify(manifest))
      writeFileSync(join(good, 'dist', 'adapter.iife.js'), '(()=>{ /* rebuilt */ })()\n')
      const run3 = await discoverPlugins({
        configDir,
        config: { localPlugins: [good, notes] },
        env: env(),
        cache,
      })
      const reloaded = run3.plugins.find((p) => p.name === 'good')!
      expect(reloaded).not.toBe(run1.plugins[0])
      expect(reloaded.tools.map((t) => t.name)).toContain('added_later')
      expect(reloaded.adapterHash).toBe(
        createHash('sha256').update('(()=>{ /* rebuilt */ })()\n').digest('hex'),
      )
      expect(readFileSync(join(configDir, 'extension', 'adapters', 'good.js'), 'utf8')).toBe(
        '(()=>{ /* rebuilt */ })()\n',
      )
      expect(run3.plugins.find((p) => p.name === 'notes')).toBe(run1.plugins[1])
    })

    it("writes an unchanged plugin's adapter copy again when the copy was changed or removed", async () => {
      const good = local(goodBuilt, 'good')
      const cache = cached()
      await discoverPlugins({ configDir, config: { localPlugins: [good] }, env: env(), cache })
      const copy = join(configDir, 'extension', 'adapters', 'good.js')
      const bundle = readFileSync(join(good, 'dist', 'adapter.iife.js'))
      writeFileSync(copy, 'tampered')
      await discoverPlugins({ configDir, config: { localPlugins: [good] }, env: env(), cache })
      expect(readFileSync(copy)).toEqual(bundle)
      rmSync(copy)
      await discoverPlugins({ configDir, config: { localPlugins: [good] }, env: env(), cache })
      expect(readFileSync(copy)).toEqual(bundle)
    })

    it('reads a broken plugin again on every reload, so a fix is picked up', async () => {
      const dir = handMade('mendme', '{ "name": "mendme", ')
      const cache = cached()
      const broken = await discoverPlugins({ configDir, config: { localPlugins: [dir] }, env: env(), cache })
      expect(broken.failedPlugins).toHaveLength(1)
      writeFileSync(join(dir, 'dist', 'tools.json'), JSON.stringify({ ...goodManifest(), name: 'mendme' }))
      const fixed = await discoverPlugins({ configDir, config: { localPlugins: [dir] }, env: env(), cache })
      expect(fixed.failedPlugins).toEqual([])
      expect(fixed.plugins.map((p) => p.name)).toEqual(['mendme'])
    })
  })
})
