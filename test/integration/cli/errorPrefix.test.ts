/**
 * Every way the built `bridge` CLI refuses (exit 1) says so on stderr as `bridge: <reason>`, in every
 * command group, with no daemon running: a person or a script reading stderr sees which program
 * spoke, once (never `bridge: bridge ...`). `bridge-plugin` does the same as `bridge-plugin: <reason>`.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ROOT, daemonEnv, tempConfigDir } from '../../helpers/daemon'
import { runCommand } from '../../helpers/runCommand'
import { runCli } from './runCli'

const dir = tempConfigDir()
afterAll(() => rmSync(dir, { recursive: true, force: true }))
// Port 1 is privileged and unused: nothing answers on it.
const NO_DAEMON = { BRIDGE_PORT: '1' }

describe('the bridge: prefix', () => {
  it.each<[string[], RegExp]>([
    [['plugin', 'frob'], /^bridge: unknown command "plugin frob"; the plugin commands are create, list/],
    [
      ['plugin', '--frob'],
      /^bridge: no plugin command given; the plugin commands are create, list, search, install and remove$/,
    ],
    [['plugin', 'remove', 'x'], /^bridge: plugin remove uninstalls "x".*Nothing was changed/],
    [['plugin', 'create', 'Bad_Name', '--dir', dir], /^bridge: plugin name "Bad_Name" must be lowercase/],
    [['config', 'reset'], /^bridge: config reset deletes .*Nothing was changed/],
    [['config', 'rotate-secret'], /^bridge: config rotate-secret replaces the secret.*Nothing was changed/],
    [['client', 'remove', 'laptop'], /^bridge: client remove deletes "laptop".*Nothing was changed/],
    [['client', 'frob'], /^bridge: unknown client command "frob"/],
    [['site', 'frob'], /^bridge: unknown site command "frob"/],
    [['workflow', 'frob'], /^bridge: unknown workflow command "frob"/],
    [['config', 'frob'], /^bridge: unknown config command "frob"/],
    [['logs', '--lines', '-3'], /^bridge: --lines must be a positive integer \(got "-3"\)$/],
    [['status', '--frob'], /^bridge: Unknown option `--frob`$/],
    [['frob'], /^bridge: unknown command "frob"/],
  ])('bridge %j', async (args, message) => {
    const result = await runCli(args, dir, NO_DAEMON)
    expect(result.code).toBe(1)
    const lines = result.stderr.trimEnd().split('\n')
    expect(lines[0]).toMatch(message)
    expect(lines.filter((line) => line.trim() !== '' && !line.startsWith('bridge: '))).toEqual([])
    expect(result.stderr).not.toMatch(/bridge: bridge /)
  })
})

describe('the bridge-plugin: prefix', () => {
  const PLUGIN_CLI = join(ROOT, 'dist', 'cli', 'bridgePlugin.js')
  // A folder with no plugin in it: every build or inspect there is refused.
  const empty = mkdtempSync(join(tmpdir(), 'bridge-plugin-empty-'))
  afterAll(() => rmSync(empty, { recursive: true, force: true }))

  it.each<[string[], RegExp]>([
    [['frob'], /^bridge-plugin: unknown command "frob"; the commands are build and inspect$/],
    [['build', '--no-reload', '--no-register'], /^bridge-plugin: build failed: no package\.json in /],
    [['build', '--port', '0x50'], /^bridge-plugin: invalid port "0x50" \(expected 1-65535\)$/],
    [['inspect'], /^bridge-plugin: no build found \(.*tools\.json is missing\)/],
  ])('bridge-plugin %j', async (args, message) => {
    const result = await runCommand(
      process.execPath,
      [PLUGIN_CLI, ...args],
      daemonEnv(dir, 'node', { PORT: undefined, ...NO_DAEMON }),
      20_000,
      empty,
    )
    expect(result.code).toBe(1)
    const lines = result.stderr.trimEnd().split('\n')
    expect(lines[0]).toMatch(message)
    expect(lines.filter((line) => line.trim() !== '' && !line.startsWith('bridge-plugin: '))).toEqual([])
  })
})
