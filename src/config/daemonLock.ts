/**
 * One daemon per config folder. The daemon (or the dev supervisor that runs it) listens on the unix
 * socket `<config folder>/daemon.sock` for as long as it lives: that listening socket is the lock.
 * The kernel owns it, so when the process dies, however it dies, nobody listens any more and a connect
 * is refused at once; no pid is read and no age is guessed. A socket file nobody listens on is what a
 * dead daemon left behind, and the next daemon replaces it.
 *
 * Why a socket and not a lock file: Node has no flock, and an `O_EXCL` file outlives a killed process,
 * so its owner would have to be guessed from a pid that may have been reused. A socket also answers:
 * a second `bridge start` learns who runs (pid, port, since when) and `bridge stop` asks that daemon
 * to stop, whichever way it was started. The folder is the user's own (0700, ./privateFiles) and the
 * socket is 0600, so no other user can connect. Taking over a dead daemon's socket (probe, remove,
 * listen) runs under `<socket>.lock` (./fileLock), so two starts at the same moment cannot both win.
 *
 * The wire: one request line (`info` or `stop`), one JSON line back (`DaemonInfo`), then the socket
 * closes. `stop` is the daemon's clean stop, the same as SIGTERM.
 */
import { chmodSync, rmSync } from 'node:fs'
import { createConnection, createServer, type Server, type Socket } from 'node:net'
import { BridgeError, BridgeErrorCode } from '../errors'
import { BRIDGE_VERSION } from '../protocol/constants'
import { withFileLockAsync } from './fileLock'
import type { BridgePaths } from './paths'

/** What the daemon holding a folder's lock says about itself. */
export interface DaemonInfo {
  pid: number
  /** 0 until it listens. */
  port: number
  /** Epoch ms. */
  startedAt: number
  version: string
  mode: 'dev' | 'production'
  configDir: string
}

export interface DaemonLock {
  /** The port the daemon listens on, once it does. */
  setPort(port: number): void
  release(): Promise<void>
}

/** The state of a folder's lock: free, or held (with what its holder said, when it answered). */
export type LockState = { held: false } | { held: true; info: DaemonInfo | undefined }

export const LOCK_ANSWER_TIMEOUT_MS = 2_000
/** sun_path is 108 bytes on Linux and 104 on macOS, each with its terminating NUL. */
const MAX_SOCKET_PATH_BYTES = 103
const MAX_REQUEST_BYTES = 64

/**
 * Takes the folder's lock or throws BridgeError `daemon_running` naming the daemon that holds it.
 * `onStopRequested` runs when `bridge stop` asks (after the answer has left).
 */
export async function acquireDaemonLock(
  paths: BridgePaths,
  options: { mode: DaemonInfo['mode']; onStopRequested: () => void },
): Promise<DaemonLock> {
  assertSocketPathFits(paths.lockSocket)
  const info: DaemonInfo = {
    pid: process.pid,
    port: 0,
    startedAt: Date.now(),
    version: BRIDGE_VERSION,
    mode: options.mode,
    configDir: paths.dir,
  }
  let stopAsked = false
  const server = createServer((socket) =>
    answer(socket, (request) => {
      if (request === 'stop' && !stopAsked) {
        stopAsked = true
        socket.once('close', options.onStopRequested)
      }
      return request === 'info' || request === 'stop' ? info : undefined
    }),
  )
  // The lock never keeps a process alive by itself: the daemon's own server and timers do.
  server.unref()
  await withFileLockAsync(paths.lockSocket, async () => {
    const state = await readDaemonLock(paths)
    if (state.held)
      throw new BridgeError(BridgeErrorCode.daemonRunning, alreadyRunningMessage(state.info, paths))
    // Nobody listens: what is there was left by a daemon that died.
    rmSync(paths.lockSocket, { force: true })
    await listen(server, paths.lockSocket)
    chmodSync(paths.lockSocket, 0o600)
  })
  return {
    setPort(port) {
      info.port = port
    },
    release: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

/** Who holds the folder's lock, asking it `request` (`stop` makes it stop). Never throws. */
export function readDaemonLock(paths: BridgePaths, request: 'info' | 'stop' = 'info'): Promise<LockState> {
  return new Promise((resolve) => {
    let settled = false
    let text = ''
    let connected = false
    const finish = (state: LockState) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      socket.destroy()
      resolve(state)
    }
    const socket = createConnection({ path: paths.lockSocket })
    const timer = setTimeout(
      () => finish(connected ? { held: true, info: undefined } : { held: false }),
      LOCK_ANSWER_TIMEOUT_MS,
    )
    socket.setEncoding('utf8')
    socket.on('connect', () => {
      connected = true
      socket.write(`${request}\n`)
    })
    socket.on('data', (chunk: string) => {
      text += chunk
      const line = text.indexOf('\n')
      if (line >= 0) finish({ held: true, info: parseInfo(text.slice(0, line)) })
    })
    // ENOENT (no socket) or ECONNREFUSED (nobody listens): free. A holder that hung up: held, unnamed.
    socket.on('error', () => finish(connected ? { held: true, info: undefined } : { held: false }))
    socket.on('close', () => finish(connected ? { held: true, info: parseInfo(text) } : { held: false }))
  })
}

/** One sentence for the person: which daemon runs for this folder, and how to stop it. */
export function alreadyRunningMessage(info: DaemonInfo | undefined, paths: BridgePaths): string {
  if (!info)
    return (
      `a bridge daemon already runs for ${paths.dir} but did not answer; ` +
      `\`bridge stop\` stops it (it holds ${paths.lockSocket})`
    )
  const on = info.port > 0 ? `port ${info.port}` : 'not listening yet'
  return (
    `bridge ${info.version} is already running for ${info.configDir} (pid ${info.pid}, ${on}, since ` +
    `${new Date(info.startedAt).toISOString()}); one daemon per config folder: \`bridge stop\` stops it, ` +
    '`bridge status` shows it'
  )
}

function answer(socket: Socket, respond: (request: string) => DaemonInfo | undefined): void {
  let text = ''
  socket.setEncoding('utf8')
  socket.setTimeout(LOCK_ANSWER_TIMEOUT_MS, () => socket.destroy())
  socket.on('error', () => socket.destroy())
  socket.on('data', (chunk: string) => {
    text += chunk
    const line = text.indexOf('\n')
    if (line < 0) {
      if (text.length > MAX_REQUEST_BYTES) socket.destroy()
      return
    }
    const info = respond(text.slice(0, line).trim())
    socket.end(info ? `${JSON.stringify(info)}\n` : '{}\n')
  })
}

function parseInfo(line: string): DaemonInfo | undefined {
  try {
    const value = JSON.parse(line) as Partial<DaemonInfo>
    return Number.isInteger(value.pid) && Number.isInteger(value.port) && typeof value.version === 'string'
      ? (value as DaemonInfo)
      : undefined
  } catch {
    return undefined
  }
}

function listen(server: Server, path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(path, () => {
      server.off('error', reject)
      resolve()
    })
  })
}

function assertSocketPathFits(path: string): void {
  const bytes = Buffer.byteLength(path)
  if (bytes > MAX_SOCKET_PATH_BYTES)
    throw new BridgeError(
      BridgeErrorCode.configUnsafe,
      `the config folder's path is too long for the daemon's lock socket (${path} is ${bytes} bytes, ` +
        `at most ${MAX_SOCKET_PATH_BYTES}): set BRIDGE_CONFIG_DIR to a shorter folder`,
    )
}
