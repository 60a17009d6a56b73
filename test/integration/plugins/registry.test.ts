// `bridge plugin search|install|remove` and `bridge update` against a real npm registry (verdaccio on
// loopback), with the user's npm doing the work in a temp global prefix, and a real daemon reloading.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildFixturePlugin, type BuiltPlugin } from '../../e2e/support/fixturePlugin'
import { ROOT, startDaemon, tempConfigDir, type RunningDaemon } from '../../helpers/daemon'
import { FakeExtension } from '../../helpers/fakeExtension'
import { startRegistry, type TestRegistry } from '../../helpers/registry'
import { REGISTRY_STEP_TIMEOUT_MS, REGISTRY_TEST_TIMEOUT_MS } from '../../helpers/timing'
import { runCli } from '../cli/runCli'

interface Health {
  pluginDetails: Array<{ name: string; version: string; source: string }>
}

describe('plugins from the npm registry', { timeout: REGISTRY_TEST_TIMEOUT_MS }, () => {
  let registry: TestRegistry
  let notes: BuiltPlugin
  let good: BuiltPlugin
  let configDir: string
  let scratch: string
  const cli = (args: string[], extra: Record<string, string | undefined> = {}) =>
    runCli(
      args,
      configDir,
      { ...registry.env(), BRIDGE_SKIP_REGISTRY_DISCOVERY: undefined, ...extra },
      REGISTRY_STEP_TIMEOUT_MS,
    )
  const installed = (pkg: string) => join(registry.prefix, 'lib', 'node_modules', pkg)
  const installedVersion = (pkg: string) =>
    (JSON.parse(readFileSync(join(installed(pkg), 'package.json'), 'utf8')) as { version: string }).version

  beforeAll(async () => {
    registry = await startRegistry()
    configDir = tempConfigDir()
    scratch = mkdtempSync(join(tmpdir(), 'bridge-registry-pkgs-'))
    notes = await buildFixturePlugin()
    good = await buildFixturePlugin({ source: join(ROOT, 'test/fixtures/plugins/good') })
    await registry.publish(notes.dir, {
      name: '@bridge-mcp/bridge-plugin-notes',
      version: '0.1.0',
      description: 'Tools for the demo notes site',
      author: 'Notes Team',
    })
    await registry.publish(good.dir, {
      name: 'bridge-plugin-good',
      version: '1.2.3',
      description: 'A good fixture',
    })
    // A package named like a plugin that is not one (no build), and a library that is no plugin at all.
    for (const name of ['bridge-plugin-broken', 'notes-helper']) {
      const dir = join(scratch, name)
      mkdirSync(dir, { recursive: true })
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, version: '1.0.0' }))
      writeFileSync(join(dir, 'index.js'), 'module.exports = 1\n')
      await registry.publish(dir, { name, version: '1.0.0', description: 'notes things' })
    }
  }, REGISTRY_TEST_TIMEOUT_MS)
  afterAll(async () => {
    notes?.remove()
    good?.remove()
    await registry?.close()
    if (configDir) rmSync(configDir, { recursive: true, force: true })
    if (scratch) rmSync(scratch, { recursive: true, force: true })
  })

  it('searches the registry for plugin packages only, with version, description and author', async () => {
    const all = await cli(['plugin', 'search'])
    expect(all.code).toBe(0)
    expect(all.stdout).toMatch(
      /@bridge-mcp\/bridge-plugin-notes\s+0\.1\.0\s+Tools for the demo notes site \(Notes Team\)/,
    )
    expect(all.stdout).toMatch(/bridge-plugin-good\s+1\.2\.3\s+A good fixture/)
    expect(all.stdout).not.toContain('notes-helper')
    expect(all.stdout).toContain('3 plugins')

    const found = await cli(['plugin', 'search', 'demo', '--json'])
    expect(found.code).toBe(0)
    expect(JSON.parse(found.stdout)).toEqual([
      {
        name: '@bridge-mcp/bridge-plugin-notes',
        version: '0.1.0',
        description: 'Tools for the demo notes site',
        author: 'Notes Team',
      },
    ])
    const none = await cli(['plugin', 'search', 'zzz-nothing'])
    expect(none.code).toBe(0)
    expect(none.stdout).toContain('No plugins in the registry match "zzz-nothing"')
  })

  it('installs a shorthand as the official scoped package, else the unscoped one, without a daemon', async () => {
    const scoped = await cli(['plugin', 'install', 'notes'])
    expect(scoped.stderr).toBe('')
    expect(scoped.code).toBe(0)
    expect(scoped.stdout).toContain('Installing @bridge-mcp/bridge-plugin-notes@0.1.0…')
    expect(scoped.stdout).toContain('Installed @bridge-mcp/bridge-plugin-notes@0.1.0: plugin "notes"')
    expect(scoped.stdout).toContain('No daemon is running')
    expect(installedVersion('@bridge-mcp/bridge-plugin-notes')).toBe('0.1.0')

    const unscoped = await cli(['plugin', 'add', 'good'])
    expect(unscoped.code).toBe(0)
    expect(unscoped.stdout).toContain('Installed bridge-plugin-good@1.2.3: plugin "good"')

    const list = await cli(['plugin', 'list', '--json'])
    expect(list.code).toBe(0)
    const listed = JSON.parse(list.stdout) as {
      plugins: Array<{ name: string; source: string; version: string }>
    }
    expect(listed.plugins.map((p) => [p.name, p.source, p.version])).toEqual([
      ['good', 'npm', '1.2.3'],
      ['notes', 'npm', '0.1.0'],
    ])
  })

  it('refuses what it cannot install, and leaves nothing behind', async () => {
    const missing = await cli(['plugin', 'install', 'nothing-here'])
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain(
      'no plugin package @bridge-mcp/bridge-plugin-nothing-here or bridge-plugin-nothing-here in the npm registry',
    )
    const broken = await cli(['plugin', 'install', 'broken'])
    expect(broken.code).toBe(1)
    expect(broken.stderr).toContain('bridge-plugin-broken@1.0.0 is not a usable bridge plugin: not built')
    expect(broken.stderr).toContain('removed it again')
    expect(existsSync(installed('bridge-plugin-broken'))).toBe(false)
    for (const bad of ['../etc', 'Notes', 'notes@1.0.0', '@evil/left-pad']) {
      const refused = await cli(['plugin', 'install', bad])
      expect(refused.code, bad).toBe(1)
      expect(refused.stderr, bad).toMatch(/is not a plugin (name|package name)/)
    }
  })

  it('updates an installed plugin in the running daemon, and removes it only with --confirm', async () => {
    let daemon: RunningDaemon | undefined
    try {
      daemon = await startDaemon({
        configDir,
        env: { ...registry.env(), BRIDGE_SKIP_REGISTRY_DISCOVERY: undefined },
      })
      const health = async () => (await (await daemon!.fetch('/health')).json()) as Health
      expect((await health()).pluginDetails.find((p) => p.name === 'notes')?.version).toBe('0.1.0')

      await registry.publish(notes.dir, {
        name: '@bridge-mcp/bridge-plugin-notes',
        version: '0.2.0',
        description: 'Tools for the demo notes site',
        author: 'Notes Team',
      })
      const update = await cli([
        'plugin',
        'install',
        '@bridge-mcp/bridge-plugin-notes',
        '--port',
        String(daemon.port),
      ])
      expect(update.code).toBe(0)
      expect(update.stdout).toContain('Installed @bridge-mcp/bridge-plugin-notes@0.2.0 (was 0.1.0)')
      expect(update.stdout).toContain('The running daemon reloaded its plugins.')
      expect((await health()).pluginDetails.find((p) => p.name === 'notes')?.version).toBe('0.2.0')

      const unconfirmed = await cli(['plugin', 'remove', 'notes', '--port', String(daemon.port)])
      expect(unconfirmed.code).toBe(1)
      expect(unconfirmed.stderr).toContain('Nothing was changed')
      expect(existsSync(installed('@bridge-mcp/bridge-plugin-notes'))).toBe(true)

      const removed = await cli(['plugin', 'rm', 'notes', '-y', '--port', String(daemon.port)])
      expect(removed.code).toBe(0)
      expect(removed.stdout).toContain('Uninstalled @bridge-mcp/bridge-plugin-notes.')
      expect(existsSync(installed('@bridge-mcp/bridge-plugin-notes'))).toBe(false)
      expect((await health()).pluginDetails.map((p) => p.name)).toEqual(['good'])

      const again = await cli(['plugin', 'remove', 'notes', '--confirm'])
      expect(again.code).toBe(1)
      expect(again.stderr).toContain('no installed plugin "notes"')
    } finally {
      await daemon?.stop()
    }
  })

  it('removes a local plugin from localPlugins, keeping its folder', async () => {
    const local = await buildFixturePlugin({ configDir })
    try {
      const config = () =>
        JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8')) as { localPlugins: string[] }
      expect(config().localPlugins).toContain(local.dir)
      const removed = await cli(['plugin', 'remove', 'notes', '--confirm'])
      expect(removed.code).toBe(0)
      expect(removed.stdout).toContain(`Removed ${local.dir} from localPlugins`)
      expect(config().localPlugins).not.toContain(local.dir)
      expect(existsSync(join(local.dir, 'dist', 'tools.json'))).toBe(true)
    } finally {
      local.remove()
    }
  })

  it(
    'serves the side panel plugin store over /ws: search, install, check, update and remove',
    async () => {
      let daemon: RunningDaemon | undefined
      let ext: FakeExtension | undefined
      try {
        daemon = await startDaemon({
          configDir,
          env: { ...registry.env(), BRIDGE_SKIP_REGISTRY_DISCOVERY: undefined },
        })
        ext = await FakeExtension.connect(daemon)
        const health = async () => (await (await daemon!.fetch('/health')).json()) as Health
        const versions = async () =>
          Object.fromEntries((await health()).pluginDetails.map((p) => [p.name, p.version]))
        expect(await versions()).toEqual({ good: '1.2.3' })

        const search = await ext.request('plugin.search', { query: 'demo' })
        expect(search.result).toEqual({
          results: [
            {
              name: '@bridge-mcp/bridge-plugin-notes',
              version: '0.2.0',
              description: 'Tools for the demo notes site',
              author: 'Notes Team',
            },
          ],
        })

        const install = await ext.request('plugin.install', { name: 'notes' })
        expect(install.error).toBeUndefined()
        expect(install.result).toMatchObject({ ok: true, plugin: { name: 'notes', version: '0.2.0' } })
        const changed = await ext.waitFor('plugins.changed', (m) =>
          (m.params?.plugins as Array<{ name: string }>).some((p) => p.name === 'notes'),
        )
        expect(changed.params?.plugins).toHaveLength(2)
        expect(await versions()).toEqual({ good: '1.2.3', notes: '0.2.0' })

        expect((await ext.request('plugin.checkUpdates', {})).result).toEqual({ updates: [] })
        await registry.publish(good.dir, { name: 'bridge-plugin-good', version: '1.3.0' })
        expect((await ext.request('plugin.checkUpdates', {})).result).toEqual({
          updates: [{ name: 'good', current: '1.2.3', latest: '1.3.0' }],
        })
        const update = await ext.request('plugin.updateFromRegistry', { name: 'good' })
        expect(update.result).toMatchObject({ ok: true, plugin: { name: 'good', version: '1.3.0' } })
        expect(await versions()).toEqual({ good: '1.3.0', notes: '0.2.0' })
        const current = await ext.request('plugin.updateFromRegistry', { name: 'good' })
        expect(current.result).toMatchObject({ ok: true, plugin: { version: '1.3.0' } })

        const missing = await ext.request('plugin.install', { name: 'nothing-here' })
        expect(missing.error?.data).toEqual({ code: 'plugin_not_found' })
        expect(missing.error?.message).toContain('no plugin package @bridge-mcp/bridge-plugin-nothing-here')
        const badName = await ext.request('plugin.install', { name: '../etc' })
        expect(badName.error?.code).toBe(-32602)
        const notPackage = await ext.request('plugin.removeBySpecifier', { specifier: 'notes' })
        expect(notPackage.error?.code).toBe(-32602)
        expect(await versions()).toEqual({ good: '1.3.0', notes: '0.2.0' })

        const bySpecifier = await ext.request('plugin.removeBySpecifier', {
          specifier: '@bridge-mcp/bridge-plugin-notes',
        })
        expect(bySpecifier.result).toEqual({ ok: true })
        expect(existsSync(installed('@bridge-mcp/bridge-plugin-notes'))).toBe(false)
        expect(await versions()).toEqual({ good: '1.3.0' })
        expect((await ext.request('plugin.remove', { name: 'good' })).result).toEqual({ ok: true })
        expect(await versions()).toEqual({})
        const again = await ext.request('plugin.remove', { name: 'good' })
        expect(again.error?.data).toEqual({ code: 'plugin_not_found' })

        // A broken new version never replaces a working plugin: the previous one is put back.
        expect((await ext.request('plugin.install', { name: 'notes' })).result).toMatchObject({ ok: true })
        const brokenDir = join(scratch, 'notes-broken')
        mkdirSync(brokenDir, { recursive: true })
        writeFileSync(join(brokenDir, 'package.json'), '{}')
        await registry.publish(brokenDir, { name: '@bridge-mcp/bridge-plugin-notes', version: '0.3.0' })
        const broken = await ext.request('plugin.updateFromRegistry', { name: 'notes' })
        expect(broken.error?.data).toEqual({ code: 'plugin_invalid' })
        expect(broken.error?.message).toContain(
          '@bridge-mcp/bridge-plugin-notes@0.3.0 is not a usable bridge plugin',
        )
        expect(broken.error?.message).toContain('put @bridge-mcp/bridge-plugin-notes@0.2.0 back')
        expect(installedVersion('@bridge-mcp/bridge-plugin-notes')).toBe('0.2.0')
        expect(await versions()).toEqual({ notes: '0.2.0' })
      } finally {
        await ext?.close()
        await daemon?.stop()
      }
    },
    REGISTRY_TEST_TIMEOUT_MS,
  )

  it('bridge update installs a newer published bridge that identifies as this project, and says when there is none', async () => {
    const unpublished = await cli(['update'])
    expect(unpublished.code).toBe(1)
    expect(unpublished.stderr).toContain('@bridge-mcp/bridge is not published in the npm registry')

    const pkgDir = join(scratch, 'bridge-cli')
    mkdirSync(pkgDir, { recursive: true })
    writeFileSync(
      join(pkgDir, 'package.json'),
      JSON.stringify({ name: '@bridge-mcp/bridge', version: '0.0.1' }),
    )
    writeFileSync(join(pkgDir, 'cli.js'), '#!/usr/bin/env node\nconsole.log("new bridge")\n')
    const current = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string })
      .version
    await registry.publish(pkgDir, { name: '@bridge-mcp/bridge', version: current })
    const same = await cli(['update'])
    expect(same.code).toBe(0)
    expect(same.stdout).toContain(`@bridge-mcp/bridge ${current} is the latest version.`)
    expect(existsSync(installed('@bridge-mcp/bridge'))).toBe(false)

    await registry.publish(pkgDir, {
      name: '@bridge-mcp/bridge',
      version: '99.0.0',
      fields: { bin: { bridge: 'cli.js' }, bridge: { role: 'cli' } },
    })
    const newer = await cli(['update'])
    expect(newer.code).toBe(0)
    expect(newer.stdout).toContain(`Installed @bridge-mcp/bridge 99.0.0 (was ${current}).`)
    expect(installedVersion('@bridge-mcp/bridge')).toBe('99.0.0')
    expect(existsSync(join(registry.prefix, 'bin', 'bridge'))).toBe(true)
  })
})
