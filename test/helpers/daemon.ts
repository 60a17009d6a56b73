/**
 * Runs the real daemon as a child process for integration tests: `node dist/server.js` (or
 * `node dist/cli/bridge.js start`) on 127.0.0.1 with PORT=0 and a temp BRIDGE_CONFIG_DIR.
 * Every daemon started here is killed in `stop()` (and on test-process exit, as a last resort).
 *
 * @example
 *   const daemon = await startDaemon({ engine: 'uws' })
 *   const res = await daemon.fetch('/health')           // with the Bearer token
 *   await daemon.stop()
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const ENGINES = ['node', 'uws'] as const
export type Engine = (typeof ENGINES)[number]

export const ROOT = fileURLToPath(new URL('../..', import.meta.url))
export const SERVER_JS = join(ROOT, 'dist/server.js')
export const CLI_JS = join(ROOT, 'dist/cli/bridge.js')

export interface StartDaemonOptions {
  engine?: Engine
  /** Extra environment; a value of undefined removes the variable. */
  env?: Record<string, string | undefined>
  /** Use this config directory (kept after stop). Default: a fresh temp dir, removed on stop. */
  configDir?: string
  /** Extra arguments for the server (or for `bridge start`). */
  args?: string[]
  /** `server`: node dist/server.js (default). `cli`: node dist/cli/bridge.js start. */
  via?: 'server' | 'cli'
  /** How long to wait for the listening line. Default 15 s. */
  timeoutMs?: number
}

export interface RunningDaemon {
  url: string
  port: number
  secret: string
  configDir: string
  proc: ChildProcess
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string
  /** Resolves with the first match of `pattern` in the output (waiting for it to appear). */
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>
  /** fetch against the daemon; sends the Bearer token unless `auth: false`. */
  fetch(path: string, init?: RequestInit & { auth?: boolean }): Promise<Response>
  /** SIGTERM, then SIGKILL after 5 s; resolves with the exit code. Removes a temp config dir. */
  stop(): Promise<number | null>
}

const running = new Set<ChildProcess>()
process.on('exit', () => {
  for (const proc of running) proc.kill('SIGKILL')
})

export function tempConfigDir(): string {
  return mkdtempSync(join(tmpdir(), 'bridge-test-'))
}

let installedBin: string | undefined

/**
 * A folder with `bridge` and `bridge-plugin` linked to this checkout's dist/cli, as `npm i -g` links
 * them: first in the tests' PATH, so the CLI finds itself as `bridge` the way an installed one does
 * (and not iproute2's /usr/sbin/bridge), and prints its commands as `bridge ...`.
 */
export function bridgeBinDir(): string {
  if (installedBin) return installedBin
  const dir = mkdtempSync(join(tmpdir(), 'bridge-bin-'))
  symlinkSync(CLI_JS, join(dir, 'bridge'))
  symlinkSync(join(ROOT, 'dist/cli/bridgePlugin.js'), join(dir, 'bridge-plugin'))
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }))
  return (installedBin = dir)
}

/**
 * The environment a test daemon runs with: the parent's, minus any BRIDGE_* and PORT, plus ours, with
 * bridgeBinDir() first in PATH.
 */
export function daemonEnv(
  configDir: string,
  engine: Engine,
  extra: Record<string, string | undefined> = {},
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [key, value] of Object.entries(process.env))
    if (!key.startsWith('BRIDGE_') && key !== 'PORT') env[key] = value
  Object.assign(env, {
    BRIDGE_CONFIG_DIR: configDir,
    BRIDGE_HTTP_ENGINE: engine,
    BRIDGE_LOG_LEVEL: 'info',
    BRIDGE_SKIP_REGISTRY_DISCOVERY: '1',
    PORT: '0',
    NO_COLOR: '1',
    PATH: `${bridgeBinDir()}${delimiter}${process.env.PATH ?? ''}`,
  })
  for (const [key, value] of Object.entries(extra)) {
    if (value === undefined) delete env[key]
    else env[key] = value
  }
  return env
}

function assertBuilt(file: string): void {
  if (!existsSync(file))
    throw new Error(`${file} is missing: run \`npm run build\` before the integration tests`)
}

/**
 * Waits (up to 60 s) for a build output to exist: `npm run build` empties dist/ first, so a build
 * running beside the tests (another terminal, a watcher) must not fail them. Throws if it never shows up.
 */
export async function waitForBuild(file: string = SERVER_JS, timeoutMs = 60_000): Promise<void> {
  if (existsSync(file)) return
  const deadline = Date.now() + timeoutMs
  while (!existsSync(file) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200))
  assertBuilt(file)
  // It just appeared: let the build finish writing the rest of dist/.
  await new Promise((resolve) => setTimeout(resolve, 1_000))
}

/** Spawns the daemon process and collects its output; does not wait for anything. */
export function spawnDaemon(options: StartDaemonOptions & { configDir: string }): {
  proc: ChildProcess
  output: () => string
  exited: Promise<number | null>
} {
  const via = options.via ?? 'server'
  const file = via === 'cli' ? CLI_JS : SERVER_JS
  assertBuilt(file)
  const args = via === 'cli' ? [file, 'start', ...(options.args ?? [])] : [file, ...(options.args ?? [])]
  const proc = spawn(process.execPath, args, {
    cwd: ROOT,
    env: daemonEnv(options.configDir, options.engine ?? 'node', options.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  running.add(proc)
  let out = ''
  proc.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')))
  proc.stderr?.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')))
  const exited = new Promise<number | null>((resolve) =>
    proc.once('exit', (code) => {
      running.delete(proc)
      resolve(code)
    }),
  )
  return { proc, output: () => out, exited }
}

/** Runs the daemon expecting it to fail at start; resolves with its exit code and output. */
export async function runDaemonToExit(
  options: StartDaemonOptions & { configDir: string },
): Promise<{ code: number | null; output: string }> {
  for (let attempt = 1; ; attempt++) {
    await waitForBuild(options.via === 'cli' ? CLI_JS : SERVER_JS)
    const child = spawnDaemon(options)
    const timer = setTimeout(() => child.proc.kill('SIGKILL'), options.timeoutMs ?? 15_000)
    const code = await child.exited
    clearTimeout(timer)
    if (attempt < 3 && lostBuild(child.output())) continue
    return { code, output: child.output() }
  }
}

/** True when the process died because a concurrent `npm run build` had emptied dist/ under it. */
export function lostBuild(output: string): boolean {
  return (
    output.includes(`Cannot find module '${join(ROOT, 'dist')}`) || output.includes('ERR_MODULE_NOT_FOUND')
  )
}

function waitFor(
  output: () => string,
  exited: Promise<number | null>,
  pattern: RegExp,
  timeoutMs: number,
): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    let done = false
    const finish = (fn: () => void) => {
      if (done) return
      done = true
      clearInterval(poll)
      clearTimeout(timer)
      fn()
    }
    const check = () => {
      const match = pattern.exec(output())
      if (match) finish(() => resolve(match))
    }
    const poll = setInterval(check, 20)
    const timer = setTimeout(
      () => finish(() => reject(new Error(`timed out waiting for ${pattern}; output:\n${output()}`))),
      timeoutMs,
    )
    void exited.then((code) => {
      check()
      finish(() =>
        reject(new Error(`daemon exited with code ${code} before printing ${pattern}; output:\n${output()}`)),
      )
    })
    check()
  })
}

export async function startDaemon(options: StartDaemonOptions = {}): Promise<RunningDaemon> {
  const ownDir = options.configDir === undefined
  const configDir = options.configDir ?? tempConfigDir()
  let child: ReturnType<typeof spawnDaemon>
  let port: number
  for (let attempt = 1; ; attempt++) {
    await waitForBuild(options.via === 'cli' ? CLI_JS : SERVER_JS)
    child = spawnDaemon({ ...options, configDir })
    try {
      const match = await waitFor(
        child.output,
        child.exited,
        /bridge listening on http:\/\/127\.0\.0\.1:(\d+)/,
        options.timeoutMs ?? 15_000,
      )
      port = Number(match[1])
      break
    } catch (error) {
      child.proc.kill('SIGKILL')
      if (attempt < 3 && lostBuild(child.output())) continue
      if (ownDir) rmSync(configDir, { recursive: true, force: true })
      throw error
    }
  }
  const secret = (
    JSON.parse(readFileSync(join(configDir, 'extension/auth.json'), 'utf8')) as { secret: string }
  ).secret
  const url = `http://127.0.0.1:${port}`
  let stopped: Promise<number | null> | undefined
  return {
    url,
    port,
    secret,
    configDir,
    proc: child.proc,
    output: child.output,
    waitForOutput: (pattern, timeoutMs = 10_000) => waitFor(child.output, child.exited, pattern, timeoutMs),
    fetch(path, init = {}) {
      const { auth = true, ...rest } = init
      const headers = new Headers(rest.headers)
      if (auth && !headers.has('authorization')) headers.set('authorization', `Bearer ${secret}`)
      return fetch(`${url}${path}`, { ...rest, headers })
    },
    stop() {
      stopped ??= (async () => {
        if (child.proc.exitCode === null && child.proc.signalCode === null) {
          child.proc.kill('SIGTERM')
          const timer = setTimeout(() => child.proc.kill('SIGKILL'), 5_000)
          await child.exited
          clearTimeout(timer)
        }
        if (ownDir) rmSync(configDir, { recursive: true, force: true })
        return child.proc.exitCode
      })()
      return stopped
    },
  }
}
