/**
 * `bridge config` without a daemon: show/get (secret truncated unless --show-secret), path, set with
 * every key and its refusals, reset and rotate-secret (nothing happens without --confirm).
 */
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { PROCESS_SEQUENCE_TIMEOUT_MS } from '../../helpers/timing'
import { tempConfigDir } from '../../helpers/daemon'
import { runCli } from './runCli'

const SECRET = 'ab'.repeat(32)
const CLIENT_TOKEN = 'cd'.repeat(32)
const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/** A config dir as `bridge start` leaves it: config.json, extension/auth.json and clients.json. */
function preparedDir(
  config: Record<string, unknown> = { localPlugins: [], permissions: {}, port: 9515 },
): string {
  const dir = tempConfigDir()
  dirs.push(dir)
  mkdirSync(join(dir, 'extension'))
  writeFileSync(join(dir, 'extension/auth.json'), JSON.stringify({ secret: SECRET }))
  writeFileSync(join(dir, 'config.json'), JSON.stringify(config, null, 2))
  writeFileSync(
    join(dir, 'clients.json'),
    JSON.stringify({
      clients: [{ name: 'default', token: CLIENT_TOKEN, createdAt: '2026-01-01T00:00:00.000Z' }],
    }),
  )
  return dir
}
const onDisk = (dir: string) =>
  JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any -- the test reads whatever was written
// A port nothing listens on, so no daemon is found.
const NO_DAEMON = { BRIDGE_PORT: '1' }

describe('bridge config show / get / path', () => {
  it('shows the files, the port and the config with the secret truncated', async () => {
    const dir = preparedDir({ localPlugins: ['/x/plugin'], permissions: {}, port: 9600 })
    const result = await runCli(['config', 'show'], dir)
    expect(result.code).toBe(0)
    expect(result.stdout).toContain(`config file       ${join(dir, 'config.json')}\n`)
    expect(result.stdout).toContain('secret            abababab… (truncated; --show-secret prints it)')
    expect(result.stdout).toContain('port              9600')
    expect(result.stdout).toContain('"/x/plugin"')
    expect(result.stdout).not.toContain(SECRET)
    const plain = await runCli(['config'], dir)
    expect(plain.stdout).toBe(result.stdout)
  })

  it("--json prints the config and a truncated secret; --show-secret adds the full secret and the default client's MCP config", async () => {
    const dir = preparedDir()
    const json = JSON.parse((await runCli(['config', 'get', '--json'], dir)).stdout) as Record<
      string,
      unknown
    >
    expect(json).toMatchObject({ configFile: join(dir, 'config.json'), secret: 'abababab…', port: 9515 })
    expect(json.config).toEqual({ localPlugins: [], permissions: {}, port: 9515 })
    expect(json.mcpClientConfig).toBeUndefined()

    const full = JSON.parse((await runCli(['config', 'show', '--json', '--show-secret'], dir)).stdout) as {
      secret: string
      mcpClient: string
      mcpClientConfig: unknown
    }
    expect(full.secret).toBe(SECRET)
    expect(full.mcpClient).toBe('default')
    // The MCP configuration carries the client's own token, never the auth.json secret.
    expect(full.mcpClientConfig).toEqual({
      mcpServers: {
        bridge: {
          type: 'http',
          url: 'http://127.0.0.1:9515/mcp',
          headers: { Authorization: `Bearer ${CLIENT_TOKEN}` },
        },
      },
    })
    const human = await runCli(['config', 'show', '--show-secret', '--port', '9700'], dir)
    expect(human.stdout).toContain(
      `secret            ${SECRET} (auth.json: the extension's and the CLI's only)`,
    )
    expect(human.stdout).toContain('MCP client "default" configuration')
    expect(human.stdout).toContain(`"Authorization": "Bearer ${CLIENT_TOKEN}"`)
    expect(human.stdout).toContain('"url": "http://127.0.0.1:9700/mcp"')
  })

  it('takes the global --port before `config`', async () => {
    const dir = preparedDir()
    const result = await runCli(['--port', '9800', 'config', 'show', '--show-secret'], dir)
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('"url": "http://127.0.0.1:9800/mcp"')
    const inline = await runCli(['--port=9801', 'config', 'get', '--json'], dir)
    expect((JSON.parse(inline.stdout) as { port: number }).port).toBe(9801)
    // A --port after the group's own words wins over the global one (one rule for every group).
    const both = await runCli(['--port', '9800', 'config', 'get', '--json', '--port', '9802'], dir)
    expect(both.code).toBe(0)
    expect((JSON.parse(both.stdout) as { port: number }).port).toBe(9802)
  })

  it('get <key> prints one value; an unknown key fails', async () => {
    const dir = preparedDir({ localPlugins: [], permissions: { notes: { permission: 'ask' } }, port: 9601 })
    expect((await runCli(['config', 'get', 'port'], dir)).stdout).toBe('9601\n')
    expect((await runCli(['config', 'get', 'permissions.notes.permission'], dir)).stdout).toBe('ask\n')
    const missing = await runCli(['config', 'get', 'nope'], dir)
    expect(missing.code).toBe(1)
    expect(missing.stderr).toMatch(/config\.json has no key "nope"/)
  })

  it('shows defaults before the first start and prints the config path', async () => {
    const dir = tempConfigDir()
    dirs.push(dir)
    const result = await runCli(['config', 'show'], dir)
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('(does not exist yet: defaults shown)')
    expect(result.stdout).toContain('secret            none yet')
    expect((await runCli(['config', 'path'], dir)).stdout).toBe(`${join(dir, 'config.json')}\n`)
  })

  it('reports a broken config.json instead of showing defaults', async () => {
    const dir = preparedDir()
    writeFileSync(join(dir, 'config.json'), '{ nope')
    const result = await runCli(['config', 'show'], dir)
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/config\.json is not valid JSON/)
  })

  it('names an unknown subcommand', async () => {
    const result = await runCli(['config', 'frobnicate'], preparedDir())
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('unknown config command "frobnicate"')
  })
})

describe('bridge config set', () => {
  it('sets tool and plugin permissions and the port, written 0600', async () => {
    const dir = preparedDir()
    // notes is not installed here: --force sets it ahead of the install.
    const tool = await runCli(
      ['config', 'set', 'tool-permission.notes.list_notes', 'auto', '--force'],
      dir,
      NO_DAEMON,
    )
    expect(tool.code).toBe(0)
    expect(tool.stdout).toContain('tool-permission.notes.list_notes = auto')
    expect(
      (await runCli(['config', 'set', 'plugin-permission.notes', 'ask', '-f'], dir, NO_DAEMON)).code,
    ).toBe(0)
    expect(
      (await runCli(['config', 'set', 'tool-permission.browser.browser_navigate', 'off'], dir, NO_DAEMON))
        .code,
    ).toBe(0)
    expect((await runCli(['config', 'set', 'port', '9700'], dir, NO_DAEMON)).code).toBe(0)
    expect(onDisk(dir)).toEqual({
      localPlugins: [],
      permissions: {
        notes: { tools: { list_notes: 'auto' }, permission: 'ask' },
        browser: { tools: { browser_navigate: 'off' } },
      },
      port: 9700,
    })
    expect(statSync(join(dir, 'config.json')).mode & 0o777).toBe(0o600)
  })

  it('adds local plugins as absolute paths (existing unless --force) and removes them', async () => {
    const dir = preparedDir()
    const plugin = join(dir, 'my-plugin')
    mkdirSync(plugin)
    const add = await runCli(['config', 'set', 'localPlugins.add', './my-plugin'], dir, { ...NO_DAEMON })
    // runCli runs from the repository root: a relative path resolves there.
    expect(add.code).toBe(1)
    expect(add.stderr).toMatch(/my-plugin does not exist \(use --force/)
    expect((await runCli(['config', 'set', 'localPlugins.add', plugin], dir, NO_DAEMON)).code).toBe(0)
    const again = await runCli(['config', 'set', 'localPlugins.add', plugin], dir, NO_DAEMON)
    expect(again.stdout).toMatch(/^unchanged/)
    const later = join(dir, 'not-yet')
    expect((await runCli(['config', 'set', 'localPlugins.add', later, '--force'], dir, NO_DAEMON)).code).toBe(
      0,
    )
    expect(onDisk(dir).localPlugins).toEqual([plugin, later])
    expect((await runCli(['config', 'set', 'localPlugins.remove', plugin], dir, NO_DAEMON)).code).toBe(0)
    expect(onDisk(dir).localPlugins).toEqual([later])
    const absent = await runCli(['config', 'set', 'localPlugins.remove', plugin], dir, NO_DAEMON)
    expect(absent.code).toBe(1)
    expect(absent.stderr).toContain(`${plugin} is not in localPlugins`)
  })

  it('adds upload folders as absolute paths of existing folders and removes them', async () => {
    const dir = preparedDir()
    const uploads = join(dir, 'uploads')
    mkdirSync(uploads)
    writeFileSync(join(uploads, 'a.txt'), 'a')
    const notFolder = await runCli(
      ['config', 'set', 'uploadFolders.add', join(uploads, 'a.txt')],
      dir,
      NO_DAEMON,
    )
    expect(notFolder.code).toBe(1)
    expect(notFolder.stderr).toContain(`${join(uploads, 'a.txt')} is not a folder`)
    const add = await runCli(['config', 'set', 'uploadFolders.add', uploads], dir, NO_DAEMON)
    expect(add.code).toBe(0)
    expect(add.stdout).toContain(`uploadFolders += ${uploads} (agents may upload any file in it)`)
    expect((await runCli(['config', 'set', 'uploadFolders.add', uploads], dir, NO_DAEMON)).stdout).toMatch(
      /^unchanged/,
    )
    expect(onDisk(dir).uploadFolders).toEqual([uploads])
    expect((await runCli(['config', 'set', 'uploadFolders.remove', uploads], dir, NO_DAEMON)).code).toBe(0)
    expect(onDisk(dir).uploadFolders).toEqual([])
    const absent = await runCli(['config', 'set', 'uploadFolders.remove', uploads], dir, NO_DAEMON)
    expect(absent.code).toBe(1)
    expect(absent.stderr).toContain(`${uploads} is not in uploadFolders`)
  })

  it('opts groups of built-in tools into the browser default, and takes them out again', async () => {
    const dir = preparedDir()
    const add = await runCli(['config', 'set', 'browser-groups.add', 'network'], dir, NO_DAEMON)
    expect(add.code).toBe(0)
    expect(add.stdout).toContain('browser-groups += network')
    expect((await runCli(['config', 'set', 'browser-groups.add', 'network'], dir, NO_DAEMON)).stdout).toMatch(
      /^unchanged/,
    )
    expect((await runCli(['config', 'set', 'browser-groups.add', 'all'], dir, NO_DAEMON)).code).toBe(0)
    expect(onDisk(dir).permissions.browser?.groups).toEqual(['network', 'all'])
    const bad = await runCli(['config', 'set', 'browser-groups.add', 'everything'], dir, NO_DAEMON)
    expect(bad.code).toBe(1)
    expect(bad.stderr).toContain('browser-groups.add needs a group: tabs, windows, page')
    expect((await runCli(['config', 'set', 'browser-groups.remove', 'network'], dir, NO_DAEMON)).code).toBe(0)
    expect((await runCli(['config', 'set', 'browser-groups.remove', 'all'], dir, NO_DAEMON)).code).toBe(0)
    expect(onDisk(dir).permissions.browser?.groups).toBeUndefined()
  })

  it(
    'refuses bad keys and values with a clear message and leaves the file unchanged',
    { timeout: PROCESS_SEQUENCE_TIMEOUT_MS },
    async () => {
      const dir = preparedDir()
      const before = readFileSync(join(dir, 'config.json'))
      const cases: [string[], RegExp][] = [
        [['nope', 'x'], /unknown key "nope"/],
        [['tool-permission.notes', 'auto'], /unknown key "tool-permission\.notes"/],
        [
          ['tool-permission.browser.browser_navigate', 'always'],
          /permission must be off, ask or auto \(got "always"\)/,
        ],
        [
          ['plugin-permission.nope', 'ask'],
          /there is no plugin "nope" \(installed and local plugins are: none\); use --force to set it before the plugin is installed/,
        ],
        [['tool-permission.nope.list', 'auto'], /there is no plugin "nope"/],
        [['plugin-permission.Bad_Name', 'ask'], /"Bad_Name" is not a plugin name/],
        [['port', '0'], /^bridge: invalid port "0" \(expected 1-65535\)$/m],
        [['port', '65536'], /^bridge: invalid port "65536" \(expected 1-65535\)$/m],
        [['port', 'http'], /^bridge: invalid port "http" \(expected 1-65535\)$/m],
        // Digits only: what Number() would read as a number is not a port either.
        [['port', '1e3'], /^bridge: invalid port "1e3" \(expected 1-65535\)$/m],
        [['port', '0x50'], /^bridge: invalid port "0x50" \(expected 1-65535\)$/m],
        [['port'], /^bridge: port needs a value \(1-65535\)$/m],
        [['localPlugins.add'], /localPlugins\.add needs a path/],
      ]
      for (const [args, message] of cases) {
        const result = await runCli(['config', 'set', ...args], dir, NO_DAEMON)
        expect(result.code, args.join(' ')).toBe(1)
        expect(result.stderr).toMatch(message)
      }
      const noKey = await runCli(['config', 'set'], dir, NO_DAEMON)
      expect(noKey.code).toBe(1)
      expect(readFileSync(join(dir, 'config.json'))).toEqual(before)
    },
  )
})

describe('bridge config reset / rotate-secret', () => {
  it('without --confirm warns and changes nothing', async () => {
    const dir = preparedDir()
    const config = readFileSync(join(dir, 'config.json'))
    const auth = readFileSync(join(dir, 'extension/auth.json'))
    const reset = await runCli(['config', 'reset'], dir)
    expect(reset.code).toBe(1)
    expect(reset.stderr).toMatch(/Nothing was changed; run `bridge config reset --confirm`/)
    const rotate = await runCli(['config', 'rotate-secret'], dir)
    expect(rotate.code).toBe(1)
    expect(rotate.stderr).toMatch(/Nothing was changed; run `bridge config rotate-secret --confirm`/)
    expect(readFileSync(join(dir, 'config.json'))).toEqual(config)
    expect(readFileSync(join(dir, 'extension/auth.json'))).toEqual(auth)
  })

  it('reset --confirm deletes config.json and keeps auth.json', async () => {
    const dir = preparedDir()
    const auth = readFileSync(join(dir, 'extension/auth.json'))
    const result = await runCli(['config', 'reset', '--confirm'], dir, NO_DAEMON)
    expect(result.code).toBe(0)
    expect(result.stdout).toContain(`deleted ${join(dir, 'config.json')}`)
    expect(() => statSync(join(dir, 'config.json'))).toThrow()
    expect(readFileSync(join(dir, 'extension/auth.json'))).toEqual(auth)
    const twice = await runCli(['config', 'reset', '--confirm'], dir, NO_DAEMON)
    expect(twice.code).toBe(1)
    expect(twice.stderr).toMatch(/does not exist; nothing to reset/)
  })

  it('rotate-secret --confirm writes a new 64-hex secret, mode 0600, and says MCP clients keep their tokens', async () => {
    const dir = preparedDir()
    const result = await runCli(['config', 'rotate-secret', '--confirm'], dir, NO_DAEMON)
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('MCP clients keep their own tokens')
    const { secret } = JSON.parse(readFileSync(join(dir, 'extension/auth.json'), 'utf8')) as {
      secret: string
    }
    expect(secret).toMatch(/^[0-9a-f]{64}$/)
    expect(secret).not.toBe(SECRET)
    expect(result.stdout).not.toContain(secret)
    expect(statSync(join(dir, 'extension/auth.json')).mode & 0o777).toBe(0o600)
  })
})
