/**
 * `bridge update` is the one install that links a program onto PATH. Attacks through a real npm
 * registry (verdaccio on loopback) by whoever publishes under the CLI's package name: a version whose
 * registry metadata claims to be this project while its tarball does not (the old code read only the
 * metadata), and one that claims it everywhere and also ships a `git` of its own (the old code linked
 * every program the package named). A package that is this project still installs and links `bridge`.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { tempConfigDir } from '../helpers/daemon'
import { startRegistry, type TestRegistry } from '../helpers/registry'
import { runCli } from '../integration/cli/runCli'

const PACKAGE = '@bridge-mcp/bridge'
const ROLE = { bridge: { role: 'cli' } }
const SCRIPT = '#!/usr/bin/env node\nconsole.log("installed bridge")\n'

describe('bridge update against a package that only claims to be bridge', { timeout: 180_000 }, () => {
  let registry: TestRegistry
  let configDir: string
  let scratch: string
  const cli = (args: string[]) => runCli(args, configDir, registry.env(), 170_000)
  const globalBin = () => join(registry.prefix, 'bin')
  const linked = () => (existsSync(globalBin()) ? readdirSync(globalBin()).sort() : [])
  const installedVersion = () => {
    const file = join(registry.prefix, 'lib', 'node_modules', '@bridge-mcp', 'bridge', 'package.json')
    return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version : null
  }
  const publish = async (version: string, fields: Record<string, unknown>, files: Record<string, string>) => {
    const dir = join(scratch, version)
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: PACKAGE, version }))
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text, { mode: 0o755 })
    await registry.publish(dir, { name: PACKAGE, version, fields })
  }

  beforeAll(async () => {
    registry = await startRegistry()
    configDir = tempConfigDir()
    scratch = mkdtempSync(join(tmpdir(), 'bridge-update-attack-'))
  }, 120_000)
  afterAll(async () => {
    await registry?.close()
    if (configDir) rmSync(configDir, { recursive: true, force: true })
    if (scratch) rmSync(scratch, { recursive: true, force: true })
  })

  it('refuses a version whose registry metadata claims the role its tarball does not carry', async () => {
    await publish('90.0.0', { bin: { bridge: 'cli.js' } }, { 'cli.js': SCRIPT })
    // The registry's copy says "this is bridge's CLI"; the tarball npm would install says nothing of it.
    const metadataFile = join(registry.storage, '@bridge-mcp', 'bridge', 'package.json')
    const metadata = JSON.parse(readFileSync(metadataFile, 'utf8')) as {
      versions: Record<string, Record<string, unknown>>
    }
    for (const version of Object.values(metadata.versions)) Object.assign(version, ROLE)
    writeFileSync(metadataFile, JSON.stringify(metadata))
    const result = await cli(['update'])
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(
      'the tarball of @bridge-mcp/bridge@90.0.0 is not this project: its package.json does not carry "bridge": { "role": "cli" } (it has no "bridge" field; it describes itself as "@bridge-mcp/bridge for tests"). Nothing was installed',
    )
    expect(installedVersion()).toBeNull()
    expect(linked()).toEqual([])
  })

  it('refuses a version that claims to be bridge and would also put a git of its own on PATH', async () => {
    await publish(
      '91.0.0',
      { ...ROLE, bin: { bridge: 'cli.js', git: 'git.js' } },
      { 'cli.js': SCRIPT, 'git.js': '#!/bin/sh\necho owned\n' },
    )
    const result = await cli(['update'])
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(
      "@bridge-mcp/bridge@91.0.0 in the npm registry is not this project: it would put programs other than bridge's own on PATH (git). Nothing was installed",
    )
    expect(installedVersion()).toBeNull()
    expect(linked()).toEqual([])
  })

  it('installs a version that is this project, from the tarball it checked, linking bridge only', async () => {
    await publish('92.0.0', { ...ROLE, bin: { bridge: 'cli.js' } }, { 'cli.js': SCRIPT })
    const result = await cli(['update'])
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('Installed @bridge-mcp/bridge 92.0.0')
    expect(installedVersion()).toBe('92.0.0')
    expect(linked()).toEqual(['bridge'])
  })
})
