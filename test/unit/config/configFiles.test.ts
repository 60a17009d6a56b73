import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { homedir, tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { atomicWriteFile, ensurePrivateDir } from '../../../src/config/atomicWrite'
import { ensureSecret, readSecret } from '../../../src/config/auth'
import { ensureConfigFile, readConfigFile, writeConfigFile } from '../../../src/config/configFile'
import { resolveLocalPluginPath } from '../../../src/config/localPlugins'
import { bridgePaths, configDirFromEnv } from '../../../src/config/paths'
import { isBridgeError } from '../../../src/errors'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bridge-config-'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))
const modeOf = (path: string) => statSync(path).mode & 0o777

describe('config paths', () => {
  it('uses BRIDGE_CONFIG_DIR, made absolute, or ~/.bridge', () => {
    expect(configDirFromEnv({ BRIDGE_CONFIG_DIR: '/x/y' })).toBe('/x/y')
    expect(configDirFromEnv({ BRIDGE_CONFIG_DIR: 'rel' })).toBe(join(process.cwd(), 'rel'))
    expect(configDirFromEnv({})).toBe(join(homedir(), '.bridge'))
  })

  it('lays out the files of the spec', () => {
    expect(bridgePaths('/c')).toEqual({
      dir: '/c',
      configFile: '/c/config.json',
      extensionDir: '/c/extension',
      authFile: '/c/extension/auth.json',
      adaptersDir: '/c/extension/adapters',
      serverLog: '/c/server.log',
      pidFile: '/c/server.pid',
      lockSocket: '/c/daemon.sock',
      auditLog: '/c/audit.log',
      clientsFile: '/c/clients.json',
    })
  })
})

describe('localPlugins path rules', () => {
  it.each([
    ['./notes', '/home/u/.bridge/notes'],
    ['../work/notes', '/home/u/work/notes'],
    ['/abs/notes', '/abs/notes'],
    ['/abs/../notes', '/notes'],
    ['~/dev/notes', '/home/u/dev/notes'],
    ['~', '/home/u'],
    ['notes', '/home/u/.bridge/notes'],
  ])('resolves %s to %s', (entry, expected) => {
    expect(resolveLocalPluginPath(entry, '/home/u/.bridge', '/home/u')).toBe(expected)
  })
})

describe('atomicWriteFile', () => {
  it('writes the bytes with mode 0600 and leaves no temp file', () => {
    const path = join(dir, 'a.json')
    atomicWriteFile(path, '{"a":1}\n')
    expect(readFileSync(path, 'utf8')).toBe('{"a":1}\n')
    expect(modeOf(path)).toBe(0o600)
    writeFileSync(path, 'old', { mode: 0o644 })
    chmodSync(path, 0o644)
    atomicWriteFile(path, 'new')
    expect(readFileSync(path, 'utf8')).toBe('new')
    expect(modeOf(path)).toBe(0o600)
    expect(readdirSync(dir)).toEqual(['a.json'])
  })

  it('leaves a shared (sticky or world-writable) directory as it is', () => {
    const shared = join(dir, 'shared')
    ensurePrivateDir(shared)
    chmodSync(shared, 0o1777)
    ensurePrivateDir(shared)
    expect(statSync(shared).mode & 0o7777).toBe(0o1777)
    chmodSync(shared, 0o777)
    ensurePrivateDir(shared)
    expect(modeOf(shared)).toBe(0o777)
  })

  it('creates private directories and tightens an existing one', () => {
    const sub = join(dir, 'x', 'y')
    ensurePrivateDir(sub)
    expect(modeOf(sub)).toBe(0o700)
    chmodSync(sub, 0o755)
    ensurePrivateDir(sub)
    expect(modeOf(sub)).toBe(0o700)
  })
})

describe('config.json', () => {
  it('is created with the defaults on first run and read back unchanged', () => {
    const path = join(dir, 'config.json')
    expect(ensureConfigFile(path)).toEqual({
      config: { localPlugins: [], permissions: {}, port: 9515 },
      created: true,
    })
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ localPlugins: [], permissions: {}, port: 9515 })
    expect(ensureConfigFile(path).created).toBe(false)
  })

  it('fills missing keys with defaults and keeps unknown keys', () => {
    const path = join(dir, 'config.json')
    writeFileSync(path, JSON.stringify({ port: 9600, future: { x: 1 } }))
    expect(readConfigFile(path)).toEqual({ localPlugins: [], permissions: {}, port: 9600, future: { x: 1 } })
  })

  it.each([
    ['{', /config\.json is not valid JSON/],
    ['[]', /config\.json: the top level must be object/],
    ['{"port": 70000}', /config\.json: port: invalid port "70000" \(expected 1-65535\)/],
    ['{"port": 0}', /config\.json: port: invalid port "0" \(expected 1-65535\)/],
    ['{"port": 80.5}', /config\.json: port must be integer/],
    ['{"localPlugins": "./a"}', /localPlugins must be array/],
    [
      '{"permissions": {"notes": {"tools": {"list": "yes"}}}}',
      /permissions\.notes\.tools\.list must be one of "off", "ask", "auto"/,
    ],
    [
      '{"permissions": {"notes": {"permision": "ask"}}}',
      /permissions\.notes has an unknown property "permision"/,
    ],
    ['{"skipPermissions": "yes"}', /skipPermissions must be boolean/],
  ])('refuses %s with a message naming the file and the problem', (text, message) => {
    const path = join(dir, 'config.json')
    writeFileSync(path, text)
    let error: unknown
    try {
      readConfigFile(path)
    } catch (e) {
      error = e
    }
    expect(isBridgeError(error)).toBe(true)
    expect((error as Error).message).toContain(path)
    expect((error as Error).message).toMatch(message)
    expect(readFileSync(path, 'utf8')).toBe(text)
  })

  it('refuses to write a config that does not match the schema', () => {
    const path = join(dir, 'config.json')
    expect(() => writeConfigFile(path, { localPlugins: [], permissions: {}, port: 0 })).toThrow(
      /refusing to write/,
    )
  })
})

describe('auth.json', () => {
  it('generates a 64-hex secret once, with mode 0600, and keeps it', () => {
    const path = join(dir, 'auth.json')
    const first = ensureSecret(path)
    expect(first.created).toBe(true)
    expect(first.secret).toMatch(/^[0-9a-f]{64}$/)
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ secret: first.secret })
    expect(modeOf(path)).toBe(0o600)
    chmodSync(path, 0o640)
    expect(ensureSecret(path)).toEqual({ secret: first.secret, created: false })
    expect(modeOf(path)).toBe(0o600)
  })

  it('generates a different secret in another directory', () => {
    expect(ensureSecret(join(dir, 'a.json')).secret).not.toBe(ensureSecret(join(dir, 'b.json')).secret)
  })

  it.each(['not json', '{}', '{"secret": "abc"}', `{"secret": "${'G'.repeat(64)}"}`])(
    'reports a broken file (%s) without replacing it or echoing it',
    (text) => {
      const path = join(dir, 'auth.json')
      writeFileSync(path, text)
      expect(() => readSecret(path)).toThrow(path)
      try {
        readSecret(path)
      } catch (error) {
        expect(isBridgeError(error, 'auth_invalid')).toBe(true)
        if (text.length > 4) expect((error as Error).message).not.toContain(text)
      }
      expect(readFileSync(path, 'utf8')).toBe(text)
    },
  )
})
