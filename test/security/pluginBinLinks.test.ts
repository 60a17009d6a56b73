/**
 * `bin` links from plugin installs, beyond a `bin` the package declares up front (covered in
 * packageInstalls.test.ts): through a real npm registry (verdaccio) and the side panel's /ws methods of
 * a real daemon, an update whose tarball alone declares `directories.bin` (the registry's metadata
 * scrubbed of it), and a plugin whose dependency declares a `git` program. No program may land on
 * PATH, and a refused update puts the installed version back.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildFixturePlugin, type BuiltPlugin } from '../e2e/support/fixturePlugin'
import { ROOT, startDaemon, tempConfigDir, type RunningDaemon } from '../helpers/daemon'
import { FakeExtension } from '../helpers/fakeExtension'
import { startRegistry, type TestRegistry } from '../helpers/registry'
import { runCli } from '../integration/cli/runCli'

const GIT = '#!/bin/sh\necho owned > /tmp/owned-by-plugin\n'

describe('bin links from plugin installs', { timeout: 180_000 }, () => {
  let registry: TestRegistry
  let good: BuiltPlugin
  let configDir: string
  let daemon: RunningDaemon
  let ext: FakeExtension
  const env = () => ({ ...registry.env(), BRIDGE_SKIP_REGISTRY_DISCOVERY: undefined })
  const globalBin = () => join(registry.prefix, 'bin')
  const linked = () => (existsSync(globalBin()) ? readdirSync(globalBin()) : [])
  const installedVersion = (pkg: string) => {
    const file = join(registry.prefix, 'lib', 'node_modules', pkg, 'package.json')
    return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version : null
  }
  const scrub = (pkg: string, field: string) => {
    const file = join(registry.storage, pkg, 'package.json')
    const metadata = JSON.parse(readFileSync(file, 'utf8')) as {
      versions: Record<string, Record<string, unknown>>
    }
    for (const version of Object.values(metadata.versions)) delete version[field]
    writeFileSync(file, JSON.stringify(metadata))
  }

  beforeAll(async () => {
    registry = await startRegistry()
    configDir = tempConfigDir()
    good = await buildFixturePlugin({ source: join(ROOT, 'test/fixtures/plugins/good') })
    await registry.publish(good.dir, { name: 'bridge-plugin-good', version: '1.0.0' })
    daemon = await startDaemon({ configDir, env: env() })
    const installed = await runCli(
      ['plugin', 'install', 'bridge-plugin-good', '--port', String(daemon.port)],
      configDir,
      env(),
      170_000,
    )
    expect(installed.code).toBe(0)
    mkdirSync(join(good.dir, 'bin'), { recursive: true })
    writeFileSync(join(good.dir, 'bin', 'git'), GIT, { mode: 0o755 })
    await registry.publish(good.dir, {
      name: 'bridge-plugin-good',
      version: '1.1.0',
      fields: { directories: { bin: 'bin' } },
    })
    scrub('bridge-plugin-good', 'directories')
    scrub('bridge-plugin-good', 'bin')
    ext = await FakeExtension.connect(daemon)
  }, 180_000)
  afterAll(async () => {
    await ext?.close()
    await daemon?.stop()
    good?.remove()
    await registry?.close()
    if (configDir) rmSync(configDir, { recursive: true, force: true })
  })

  it('refuses an update whose tarball alone declares directories.bin, puts 1.0.0 back, links nothing', async () => {
    expect(installedVersion('bridge-plugin-good')).toBe('1.0.0')
    const answer = await ext.request('plugin.updateFromRegistry', { name: 'good' })
    expect(answer.error?.message).toContain(
      'bridge-plugin-good@1.1.0 declares programs to put on PATH (bin: directories.bin); a plugin is built files only and never installs programs; put bridge-plugin-good@1.0.0 back',
    )
    expect(installedVersion('bridge-plugin-good')).toBe('1.0.0')
    expect(linked()).toEqual([])
  })

  it('links no program of a dependency either', async () => {
    const dep = join(configDir, 'dep')
    mkdirSync(dep, { recursive: true })
    writeFileSync(join(dep, 'package.json'), JSON.stringify({ name: 'helpful-dep', version: '1.0.0' }))
    writeFileSync(join(dep, 'git'), GIT, { mode: 0o755 })
    await registry.publish(dep, { name: 'helpful-dep', version: '1.0.0', fields: { bin: { git: 'git' } } })
    const withDep = await buildFixturePlugin({ source: join(ROOT, 'test/fixtures/plugins/good') })
    try {
      writeFileSync(
        join(withDep.dir, 'dist', 'tools.json'),
        JSON.stringify({
          ...JSON.parse(readFileSync(join(withDep.dir, 'dist', 'tools.json'), 'utf8')),
          name: 'other',
        }),
      )
      await registry.publish(withDep.dir, {
        name: 'bridge-plugin-other',
        version: '1.0.0',
        fields: { dependencies: { 'helpful-dep': '1.0.0' } },
      })
    } finally {
      withDep.remove()
    }
    const answer = await ext.request('plugin.install', { name: 'bridge-plugin-other' })
    expect(answer.error).toBeUndefined()
    expect(installedVersion('bridge-plugin-other')).toBe('1.0.0')
    expect(linked()).toEqual([])
    expect(existsSync('/tmp/owned-by-plugin')).toBe(false)
  })
})
