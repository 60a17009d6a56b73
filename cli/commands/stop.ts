/**
 * `bridge stop [--port <n>]`: stops a daemon started with `bridge start --background`. Reads
 * `server.pid`, sends SIGTERM, waits up to 5 s and removes the pid file. Without a pid file it can only
 * say whether something answers on the port: a foreground daemon is stopped in its own terminal.
 */
import type { CAC } from 'cac'
import { existsSync, readFileSync, rmSync } from 'node:fs'
import { existsNoFollow, readFileNoFollow } from '../../src/config/privateFiles'
import { bridgePaths, configDirFromEnv, type BridgePaths } from '../../src/config/paths'
import { baseUrl, fetchHealth } from '../shared/daemonClient'
import { daemonTarget } from '../shared/daemonTarget'
import { errorText, fail, say } from '../shared/output'
import { isProcessAlive } from '../../src/config/processAlive'

interface StopFlags {
  port?: unknown
}

const STOP_WAIT_MS = 5_000

export function registerStop(cli: CAC): void {
  cli
    .command('stop', 'Stop a daemon started with `bridge start --background`')
    .action((flags: StopFlags) => stop(flags))
}

async function stop(flags: StopFlags): Promise<void> {
  const paths = bridgePaths(configDirFromEnv())
  if (existsNoFollow(paths.pidFile)) return stopByPid(paths)
  let port: number
  let secret: string | null
  try {
    ;({ port, secret } = daemonTarget(flags.port, { configDir: paths.dir }))
  } catch (error) {
    return fail(errorText(error))
  }
  const health = await fetchHealth(port, secret, 3_000)
  if (!health.ok && (health.reason === 'impostor' || health.reason === 'busy')) return fail(health.message)
  if (health.ok || health.reason !== 'not_running')
    return fail(
      `a bridge daemon answers on ${baseUrl(port)} but there is no ${paths.pidFile}: it was not started with ` +
        '`bridge start --background`, so stop it where it runs (Ctrl-C in its terminal)',
    )
  say(`bridge is not running (no pid file in ${paths.dir}, nothing answers on ${baseUrl(port)})`)
}

async function stopByPid(paths: BridgePaths): Promise<void> {
  let text: string
  try {
    text = readFileNoFollow(paths.pidFile).trim()
  } catch (error) {
    return fail(errorText(error))
  }
  const pid = /^\d+$/.test(text) ? Number(text) : NaN
  if (!Number.isSafeInteger(pid) || pid <= 1) {
    rmSync(paths.pidFile, { force: true })
    return fail(`${paths.pidFile} did not hold a process id ("${text.slice(0, 20)}"); removed it`)
  }
  if (!isProcessAlive(pid) || !looksLikeBridge(pid)) {
    rmSync(paths.pidFile, { force: true })
    say(`bridge is not running: removed the stale pid file (process ${pid} is gone)`)
    return
  }
  try {
    process.kill(pid, 'SIGTERM')
  } catch (error) {
    return fail(`could not signal process ${pid}: ${errorText(error)}`)
  }
  const deadline = Date.now() + STOP_WAIT_MS
  while (Date.now() < deadline && isProcessAlive(pid))
    await new Promise((resolve) => setTimeout(resolve, 100))
  if (isProcessAlive(pid))
    return fail(
      `process ${pid} did not exit within ${STOP_WAIT_MS / 1000} s of SIGTERM; the pid file is kept. ` +
        `See ${paths.serverLog}; \`kill -9 ${pid}\` ends it without a clean shutdown.`,
    )
  rmSync(paths.pidFile, { force: true })
  say(`bridge stopped (pid ${pid})`)
}

/**
 * The pid may have been reused by an unrelated process since the daemon died. Where the command line
 * can be read (Linux /proc), only a node process running bridge's server counts.
 */
function looksLikeBridge(pid: number): boolean {
  const cmdline = `/proc/${pid}/cmdline`
  if (!existsSync(cmdline)) return true
  try {
    const args = readFileSync(cmdline, 'utf8').split('\0')
    return args.some((arg) => arg.endsWith('server.js') || arg.includes('bridge'))
  } catch {
    return true
  }
}
