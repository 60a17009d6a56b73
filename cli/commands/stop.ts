/**
 * `bridge stop [--port <n>]`: stops the daemon that holds this config folder's lock
 * (src/config/daemonLock.ts), however it was started (foreground, --background, --dev, `npx`): it is
 * asked over its lock socket, stops cleanly, and this waits for its process to end. A daemon of an
 * older bridge (no lock) is stopped by its `server.pid`, as before; without either it can only say
 * whether something answers on the port.
 */
import type { CAC } from 'cac'
import { existsSync, readFileSync, rmSync } from 'node:fs'
import { existsNoFollow, readFileNoFollow } from '../../src/config/privateFiles'
import { bridgePaths, configDirFromEnv, type BridgePaths } from '../../src/config/paths'
import { baseUrl, fetchHealth } from '../../src/http/daemonClient'
import { daemonTarget } from '../shared/daemonTarget'
import { errorText, fail, say } from '../shared/output'
import { isProcessAlive } from '../../src/config/processAlive'
import { readDaemonLock } from '../../src/config/daemonLock'

interface StopFlags {
  port?: unknown
}

const STOP_WAIT_MS = 5_000

export function registerStop(cli: CAC): void {
  cli
    .command('stop', 'Stop the daemon of this config folder, however it was started')
    .action((flags: StopFlags) => stop(flags))
}

async function stop(flags: StopFlags): Promise<void> {
  const paths = bridgePaths(configDirFromEnv())
  const lock = await readDaemonLock(paths, 'stop')
  if (lock.held) return waitForStop(paths, lock.info?.pid, lock.info?.port)
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
      `a bridge daemon answers on ${baseUrl(port)} but it is not the daemon of ${paths.dir} (it runs with ` +
        'another BRIDGE_CONFIG_DIR, or is an older bridge started in the foreground): stop it with ' +
        '`bridge stop` and that BRIDGE_CONFIG_DIR, or with Ctrl-C where it runs',
    )
  say(`bridge is not running (no daemon holds ${paths.dir}, nothing answers on ${baseUrl(port)})`)
}

/** The daemon was asked to stop over its lock: waits until its process is gone and its lock free. */
async function waitForStop(
  paths: BridgePaths,
  pid: number | undefined,
  port: number | undefined,
): Promise<void> {
  const deadline = Date.now() + STOP_WAIT_MS
  const stopped = async () =>
    !(await readDaemonLock(paths)).held && (pid === undefined || !isProcessAlive(pid))
  while (Date.now() < deadline && !(await stopped())) await new Promise((resolve) => setTimeout(resolve, 100))
  if (!(await stopped()))
    return fail(
      `the daemon${pid ? ` (pid ${pid})` : ''} was asked to stop but still runs after ${STOP_WAIT_MS / 1000} s. ` +
        `See ${paths.serverLog}${pid ? `; \`kill -9 ${pid}\` ends it without a clean shutdown` : ''}.`,
    )
  rmSync(paths.pidFile, { force: true })
  say(`bridge stopped${pid ? ` (pid ${pid}${port ? `, port ${port}` : ''})` : ''}`)
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
