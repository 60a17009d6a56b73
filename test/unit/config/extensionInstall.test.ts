import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  chromeVersion,
  installedExtensionVersion,
  installExtensionFiles,
  writeServerInfo,
} from '../../../src/config/extensionInstall'

describe('extension files in <config>/extension', () => {
  let root: string
  let source: string
  let target: string
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'bridge-extinstall-'))
    source = join(root, 'dist')
    target = join(root, 'extension')
    mkdirSync(join(source, 'icons'), { recursive: true })
    mkdirSync(target)
    writeFileSync(
      join(source, 'manifest.json'),
      JSON.stringify({ manifest_version: 3, name: 'bridge', version: '0.0.1' }),
    )
    writeFileSync(join(source, 'background.js'), 'new code')
    writeFileSync(join(source, 'icons', 'icon16.png'), 'png')
  })
  afterEach(() => rmSync(root, { recursive: true, force: true }))

  it('copies the build, stamps the version and keeps auth.json and adapters', () => {
    writeFileSync(join(target, 'auth.json'), '{"secret":"kept"}')
    mkdirSync(join(target, 'adapters'))
    writeFileSync(join(target, 'adapters', 'notes.js'), 'adapter')
    expect(installExtensionFiles(source, target, '1.2.3-beta.1')).toBe(true)
    const manifest = JSON.parse(readFileSync(join(target, 'manifest.json'), 'utf8'))
    expect(manifest.version).toBe('1.2.3')
    expect(manifest.version_name).toBe('1.2.3-beta.1')
    expect(readFileSync(join(target, 'background.js'), 'utf8')).toBe('new code')
    expect(readFileSync(join(target, 'icons', 'icon16.png'), 'utf8')).toBe('png')
    expect(readFileSync(join(target, 'auth.json'), 'utf8')).toBe('{"secret":"kept"}')
    expect(readFileSync(join(target, 'adapters', 'notes.js'), 'utf8')).toBe('adapter')
    expect(installedExtensionVersion(target)).toBe('1.2.3-beta.1')
  })

  it('leaves the files alone when the installed version is current, and updates them when it changed', () => {
    installExtensionFiles(source, target, '1.0.0')
    writeFileSync(join(source, 'background.js'), 'newer code')
    expect(installExtensionFiles(source, target, '1.0.0')).toBe(false)
    expect(readFileSync(join(target, 'background.js'), 'utf8')).toBe('new code')
    expect(installExtensionFiles(source, target, '1.0.1')).toBe(true)
    expect(readFileSync(join(target, 'background.js'), 'utf8')).toBe('newer code')
  })

  it('writes server.json with the port', () => {
    writeServerInfo(target, 43123)
    expect(JSON.parse(readFileSync(join(target, 'server.json'), 'utf8'))).toEqual({ port: 43123 })
    expect(statSync(join(target, 'server.json')).mode & 0o777).toBe(0o644)
  })

  it('turns any version into one Chrome accepts', () => {
    expect(chromeVersion('0.1.0')).toBe('0.1.0')
    expect(chromeVersion('2.0.0-rc.1+build.5')).toBe('2.0.0')
    expect(chromeVersion('dev')).toBe('0.0.0')
  })
})
