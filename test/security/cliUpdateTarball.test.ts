/**
 * `bridge update` reads `package/package.json` from the release's tarball, and npm installs a tarball
 * by dropping the first folder name of every entry, whatever it is. Attack through a real npm registry
 * (verdaccio on loopback): a release whose tarball holds `package/` exactly as bridge checks it (this
 * project's role, only `bridge` linked) and, after it, a second top-level folder whose package.json
 * claims no role and links a `git`. The old code checked the first and npm installed the second: the
 * user's next `git` ran the publisher's code. Also the registry's own look-alikes of the CLI package: a
 * version with another `bridge.role`, one whose `bridge` program is another program's, one with an
 * install script, and a typo-squatted scope the update never asks for. And what is read again after the
 * install: a program linked into the installed folder beyond what was checked puts the previous version
 * back.
 */
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { tempConfigDir } from '../helpers/daemon'
import { startRegistry, type TestRegistry } from '../helpers/registry'
import { runCli } from '../integration/cli/runCli'

const PACKAGE = '@bridge-mcp/bridge'
const ROLE = { bridge: { role: 'cli' } }
const SCRIPT = '#!/usr/bin/env node\nconsole.log("installed bridge")\n'
const GIT = '#!/bin/sh\necho owned > "$HOME/owned"\n'

describe('bridge update against a crafted release and look-alike packages', { timeout: 240_000 }, () => {
  let registry: TestRegistry
  let configDir: string
  let scratch: string
  const cli = (args: string[]) => runCli(args, configDir, registry.env(), 170_000)
  const globalBin = () => join(registry.prefix, 'bin')
  const linked = () => (existsSync(globalBin()) ? readdirSync(globalBin()).sort() : [])
  const installed = () => {
    const file = join(registry.prefix, 'lib', 'node_modules', '@bridge-mcp', 'bridge', 'package.json')
    return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>) : null
  }
  const publish = async (
    version: string,
    fields: Record<string, unknown>,
    files: Record<string, string>,
    name = PACKAGE,
  ) => {
    const dir = join(scratch, `${name.replace('/', '-')}-${version}`)
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, version }))
    for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text, { mode: 0o755 })
    await registry.publish(dir, { name, version, fields })
  }

  /**
   * Replaces the stored tarball of `version` by one made of `folders` (in that order), and the
   * registry's integrity record with the new tarball's, as a publisher who crafts the tarball has it.
   */
  const craftTarball = (version: string, folders: [string, Record<string, string>][]) => {
    const args: string[] = []
    for (const [folder, files] of folders) {
      const dir = mkdtempSync(join(scratch, 'craft-'))
      mkdirSync(join(dir, folder))
      for (const [file, text] of Object.entries(files))
        writeFileSync(join(dir, folder, file), text, { mode: 0o755 })
      args.push('-C', dir, folder)
    }
    const stored = join(registry.storage, '@bridge-mcp', 'bridge')
    const tarball = readdirSync(stored).find((f) => f.endsWith(`-${version}.tgz`))!
    execFileSync('tar', ['-czf', join(stored, tarball), ...args])
    const bytes = readFileSync(join(stored, tarball))
    const metadataFile = join(stored, 'package.json')
    const metadata = JSON.parse(readFileSync(metadataFile, 'utf8')) as {
      versions: Record<string, { dist: Record<string, unknown> }>
      _attachments?: Record<string, { shasum?: string }>
    }
    const dist = metadata.versions[version]!.dist
    dist.shasum = createHash('sha1').update(bytes).digest('hex')
    dist.integrity = `sha512-${createHash('sha512').update(bytes).digest('base64')}`
    const attachment = metadata._attachments?.[tarball]
    if (attachment) attachment.shasum = dist.shasum as string
    writeFileSync(metadataFile, JSON.stringify(metadata))
  }

  beforeAll(async () => {
    registry = await startRegistry()
    configDir = tempConfigDir()
    scratch = mkdtempSync(join(tmpdir(), 'bridge-update-tarball-'))
  }, 120_000)
  afterAll(async () => {
    await registry?.close()
    if (configDir) rmSync(configDir, { recursive: true, force: true })
    if (scratch) rmSync(scratch, { recursive: true, force: true })
  })

  it('refuses a tarball whose package/ is as checked but which holds a second folder npm would install', async () => {
    const good = { ...ROLE, name: PACKAGE, version: '80.0.0', bin: { bridge: 'cli.js' } }
    await publish('80.0.0', { ...ROLE, bin: { bridge: 'cli.js' } }, { 'cli.js': SCRIPT })
    craftTarball('80.0.0', [
      ['package', { 'package.json': JSON.stringify(good), 'cli.js': SCRIPT }],
      [
        'second',
        {
          'package.json': JSON.stringify({ name: PACKAGE, version: '80.0.0', bin: { git: 'git.js' } }),
          'git.js': GIT,
        },
      ],
    ])
    const result = await cli(['update'])
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(
      'the tarball of @bridge-mcp/bridge@80.0.0 holds entries npm would install in place of the package checked (outside package/, or naming one file twice: second/',
    )
    expect(result.stderr).toContain('Nothing was installed')
    expect(installed()).toBeNull()
    expect(linked()).toEqual([])
  })

  it('refuses a version whose bridge.role is another one, saying what it claims', async () => {
    await publish('81.0.0', { bridge: { role: 'plugin' }, bin: { bridge: 'cli.js' } }, { 'cli.js': SCRIPT })
    const result = await cli(['update'])
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(
      '@bridge-mcp/bridge@81.0.0 in the npm registry is not this project: its package.json does not carry "bridge": { "role": "cli" } (its "bridge" field is {"role":"plugin"}',
    )
    expect(installed()).toBeNull()
    expect(linked()).toEqual([])
  })

  it('refuses a version whose program is another program (a `node` under bridge’s role)', async () => {
    await publish('82.0.0', { ...ROLE, bin: { node: 'cli.js' } }, { 'cli.js': SCRIPT })
    const result = await cli(['update'])
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(
      "@bridge-mcp/bridge@82.0.0 in the npm registry is not this project: it would put programs other than bridge's own on PATH (node). Nothing was installed",
    )
    expect(linked()).toEqual([])
  })

  it('installs a version with an install script without running it', async () => {
    // A typo-squatted scope beside it is never asked for: the update follows the one package name.
    await publish(
      '99.0.0',
      { ...ROLE, bin: { bridge: 'cli.js' } },
      { 'cli.js': SCRIPT },
      '@bridge-mpc/bridge',
    )
    await publish(
      '83.0.0',
      {
        ...ROLE,
        bin: { bridge: 'cli.js' },
        scripts: { postinstall: "node -e \"require('fs').writeFileSync('ran', '')\"" },
      },
      { 'cli.js': SCRIPT },
    )
    const result = await cli(['update'])
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('Installed @bridge-mcp/bridge 83.0.0')
    expect(installed()?.version).toBe('83.0.0')
    expect(linked()).toEqual(['bridge'])
    const dir = join(registry.prefix, 'lib', 'node_modules', '@bridge-mcp', 'bridge')
    expect(existsSync(join(dir, 'ran'))).toBe(false)
    expect(existsSync(join(registry.prefix, 'lib', 'node_modules', '@bridge-mpc'))).toBe(false)
  })

  it('refuses a tarball that names package/package.json twice (npm keeps the second, tar shows the first)', async () => {
    const good = { ...ROLE, name: PACKAGE, version: '84.0.0', bin: { bridge: 'cli.js' } }
    await publish('84.0.0', { ...ROLE, bin: { bridge: 'cli.js' } }, { 'cli.js': SCRIPT })
    craftTarball('84.0.0', [
      ['package', { 'package.json': JSON.stringify(good), 'cli.js': SCRIPT }],
      [
        'package',
        {
          'package.json': JSON.stringify({ ...good, bin: { bridge: 'cli.js', git: 'git.js' } }),
          'git.js': GIT,
        },
      ],
    ])
    const result = await cli(['update'])
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('or naming one file twice: package/, package/package.json')
    expect(installed()?.version).toBe('83.0.0')
    expect(linked()).toEqual(['bridge'])
  })

  it('puts the previous version back when a program links into what was installed beyond what was checked', async () => {
    // A `git` link into bridge's folder, left by a rogue local process (or an older release), and a
    // release that is this project in every checked way but carries a plain git.js file: installed,
    // the user's next `git` would run it. The install is read again, found to link git, and undone.
    const dir = join(registry.prefix, 'lib', 'node_modules', '@bridge-mcp', 'bridge')
    symlinkSync(join(dir, 'git.js'), join(globalBin(), 'git'))
    await publish('85.0.0', { ...ROLE, bin: { bridge: 'cli.js' } }, { 'cli.js': SCRIPT, 'git.js': GIT })
    const result = await cli(['update'])
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(
      'what npm installed for @bridge-mcp/bridge@85.0.0 is not what was checked: it linked the programs bridge, git (checked: bridge); put @bridge-mcp/bridge@83.0.0 back',
    )
    expect(installed()?.version).toBe('83.0.0')
    expect(existsSync(join(dir, 'git.js'))).toBe(false)
  })
})
