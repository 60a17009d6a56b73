/**
 * Dev mode's hot reload of the server files: `node dist/server.js --dev` runs this small supervisor,
 * which runs the daemon as a child process and starts a fresh one, on the same port, whenever the
 * server bundle changes (after `npm run build`). Signals are passed on, so Ctrl-C or SIGTERM stop the
 * daemon cleanly and the supervisor exits with its code.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { statSync, unwatchFile, watchFile, type Stats } from 'node:fs'
import { acquireDaemonLock, type DaemonLock } from './config/daemonLock'
import type { BridgePaths } from './config/paths'
import { isBridgeError } from './errors'
import { log } from './log'

const logger = log.withTag('dev')

/** Set in the child's environment: the child is the daemon itself, not another supervisor. */
export const SUPERVISED_ENV = 'BRIDGE_SUPERVISED'

/** What a supervised daemon sends its supervisor once it listens. */
export interface ListeningMessage {
  type: 'listening'
  port: number
}

const isListening = (message: unknown): message is ListeningMessage =>
  typeof message === 'object' &&
  message !== null &&
  (message as ListeningMessage).type === 'listening' &&
  Number.isInteger((message as ListeningMessage).port)
const POLL_MS = 500
const SETTLE_MS = 300

export interface SupervisorOptions {
  /** The server bundle (dist/server.js): run as the child and watched. */
  serverFile: string
  args: readonly string[]
  /** The port asked for; after the first start, the port the daemon bound (so PORT=0 keeps its port). */
  port: number
  /** The config folder: the supervisor holds its lock, so no other daemon starts while the child restarts. */
  paths: BridgePaths
}

export async function runSupervisor(options: SupervisorOptions): Promise<void> {
  let lock: DaemonLock
  try {
    lock = await acquireDaemonLock(options.paths, {
      mode: 'dev',
      onStopRequested: () => process.kill(process.pid, 'SIGTERM'),
    })
  } catch (error) {
    logger.error(isBridgeError(error) || error instanceof Error ? error.message : String(error))
    return process.exit(1)
  }
  let port = options.port
  let child: ChildProcess | undefined
  let everListened = false
  let stopping = false
  let restarting = false
  let settleTimer: NodeJS.Timeout | undefined

  const start = () => {
    const current = spawn(process.execPath, [options.serverFile, ...options.args], {
      env: { ...process.env, [SUPERVISED_ENV]: '1', PORT: String(port) },
      // Its own process group: a Ctrl-C reaches the supervisor only, which passes it on once. Output
      // goes straight to the supervisor's own. Over the IPC channel the daemon reports the port it
      // bound, and notices a supervisor that died.
      detached: true,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    })
    child = current
    current.on('message', (message: unknown) => {
      if (!isListening(message)) return
      everListened = true
      port = message.port
      lock.setPort(port)
    })
    current.once('exit', (code, signal) => {
      if (child === current) child = undefined
      if (stopping) return process.exit(code ?? 1)
      if (restarting) return
      // The first start failed (port in use, broken config): exit as the daemon did.
      if (!everListened) return process.exit(code ?? 1)
      logger.error(
        `the daemon exited (${signal ?? `code ${code}`}); it starts again when the server files change`,
      )
    })
  }

  const restart = async () => {
    restarting = true
    logger.info('server files changed: restarting the daemon')
    const previous = child
    if (previous && previous.exitCode === null && previous.signalCode === null) {
      const exited = new Promise((resolve) => previous.once('exit', resolve))
      previous.kill('SIGTERM')
      await exited
    }
    restarting = false
    if (!stopping) start()
  }

  let last = fingerprint(options.serverFile)
  const onPoll = (current: Stats) => {
    const next = current.mtimeMs === 0 ? undefined : fingerprint(options.serverFile)
    // Missing (the build is swapping dist/ in) or unchanged: wait for the next poll.
    if (next === undefined || next === last) return
    last = next
    clearTimeout(settleTimer)
    settleTimer = setTimeout(() => void restart(), SETTLE_MS)
  }
  watchFile(options.serverFile, { interval: POLL_MS }, onPoll)

  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      child?.kill('SIGKILL')
      return process.exit(1)
    }
    stopping = true
    clearTimeout(settleTimer)
    unwatchFile(options.serverFile, onPoll)
    if (!child) return process.exit(0)
    logger.info(`${signal} received, stopping the daemon`)
    // In a restart the daemon is already stopping: a second SIGTERM would cut its shutdown short.
    if (!restarting) child.kill('SIGTERM')
  }
  process.on('SIGTERM', () => stop('SIGTERM'))
  process.on('SIGINT', () => stop('SIGINT'))
  start()
}

/** Size, mtime and inode: a rebuild changes at least one, a swapped-in dist/ changes the inode. */
function fingerprint(file: string): string | undefined {
  try {
    const stat = statSync(file)
    return `${stat.size}:${stat.mtimeMs}:${stat.ino}`
  } catch {
    return undefined
  }
}
