/**
 * One port rule at every entry point of the built CLI (src/config/port.ts): digits only, 1-65535, and 0
 * (any free port) only where bridge listens itself. Each refusal names the value and the range, exits
 * 1, and changes nothing.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { ROOT, daemonEnv, startDaemon, tempConfigDir, type RunningDaemon } from '../../helpers/daemon'
import { runCommand } from '../../helpers/runCommand'
import { runCli } from './runCli'

const dirs: string[] = []
const daemons: RunningDaemon[] = []
afterEach(async () => {
  await Promise.all(daemons.splice(0).map((d) => d.stop()))
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})
const freshDir = () => {
  const dir = tempConfigDir()
  dirs.push(dir)
  return dir
}
const CLIENT_RANGE = '(expected 1-65535)'
const LISTEN_RANGE = '(expected 0-65535; 0 picks a free port)'

describe('the port range of the bridge CLI', () => {
  it('refuses a --port that is not written in digits, before or after the command', async () => {
    const dir = freshDir()
    const cases: Array<[string[], string]> = [
      [['status', '--port', '1e3'], `bridge: invalid port "1e3" ${CLIENT_RANGE}\n`],
      [['status', '--port=0x50'], `bridge: invalid port "0x50" ${CLIENT_RANGE}\n`],
      [['--port', '0x50', 'config', 'show'], `bridge: invalid port "0x50" ${CLIENT_RANGE}\n`],
      [['plugin', 'list', '--port', '1e3'], `bridge: invalid port "1e3" ${CLIENT_RANGE}\n`],
      [['audit', '--port', ''], `bridge: invalid port "" ${CLIENT_RANGE}\n`],
      [['stop', '--port', '0'], `bridge: invalid port "0" ${CLIENT_RANGE}\n`],
      [['start', '--port', '1e3'], `bridge: invalid port "1e3" ${LISTEN_RANGE}\n`],
      [['start', '--port', '65536'], `bridge: invalid port "65536" ${LISTEN_RANGE}\n`],
      [['demo', '--site-port', '0x50'], `bridge: --site-port: invalid port "0x50" ${LISTEN_RANGE}\n`],
      [['demo', '--site-port', '70000'], `bridge: --site-port: invalid port "70000" ${LISTEN_RANGE}\n`],
    ]
    for (const [args, stderr] of cases) {
      const result = await runCli(args, dir)
      expect(result.stderr, args.join(' ')).toBe(stderr)
      expect(result.code, args.join(' ')).toBe(1)
    }
  })

  it('reads BRIDGE_PORT and PORT by the same rule', async () => {
    const dir = freshDir()
    const status = await runCli(['status'], dir, { BRIDGE_PORT: '1e3' })
    expect(status.stderr).toBe(`bridge: invalid port "1e3" ${CLIENT_RANGE}\n`)
    expect(status.code).toBe(1)
    const start = await runCli(['start'], dir, { PORT: '0x50' })
    expect(start.stderr).toContain(`invalid port "0x50" ${LISTEN_RANGE}`)
    expect(start.code).toBe(1)
  })

  it('names a config.json port out of range as the cause', async () => {
    const dir = freshDir()
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ localPlugins: [], permissions: {}, port: 0 }))
    const result = await runCli(['status'], dir)
    expect(result.stderr).toContain(`${join(dir, 'config.json')}: port: invalid port "0" ${CLIENT_RANGE}`)
    expect(result.code).toBe(1)
  })

  it('lets `bridge start --port 0` listen on a free port', async () => {
    const daemon = await startDaemon({ via: 'cli', configDir: freshDir(), args: ['--port', '0'] })
    daemons.push(daemon)
    expect(daemon.port).toBeGreaterThan(0)
    expect((await daemon.fetch('/health', { auth: false })).status).toBe(200)
  })

  it('refuses the same texts in bridge-plugin build --port', async () => {
    const dir = freshDir()
    const result = await runCommand(
      process.execPath,
      [join(ROOT, 'dist', 'cli', 'bridgePlugin.js'), 'build', '--port', '1e3', '--dir', dir],
      daemonEnv(dir, 'node', {}),
      20_000,
      ROOT,
    )
    expect(result.stderr + result.stdout).toContain(`invalid port "1e3" ${CLIENT_RANGE}`)
    expect(result.code).toBe(1)
    // Nothing was built or registered.
    expect(() => readFileSync(join(dir, 'config.json'))).toThrow()
  })

  it('refuses the same texts in the demo site run on its own (node examples/demo-site/server.mjs)', async () => {
    const dir = freshDir()
    for (const [args, shown] of [
      [['--port', '1e3'], '"1e3"'],
      [['--port', '0x50'], '"0x50"'],
      [['--port', '70000'], '"70000"'],
      [['--port'], '""'],
    ] as const) {
      const result = await runCommand(
        process.execPath,
        [join(ROOT, 'examples', 'demo-site', 'server.mjs'), ...args],
        daemonEnv(dir, 'node', {}),
        20_000,
        ROOT,
      )
      expect(result.stderr).toBe(`demo site: invalid port ${shown} ${LISTEN_RANGE}\n`)
      expect(result.code).toBe(1)
    }
  })
})
