/**
 * Dev mode's hot reload of the server files: `node dist/server.js --dev` supervises the daemon and
 * starts a fresh one on the same port when the bundle changes. The server runs from a copy of dist/
 * here, so rewriting its bundle cannot disturb the other tests that run the real one.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import {
  appendFileSync,
  cpSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeAll, afterAll, describe, expect, it } from 'vitest'
import { daemonEnv, ROOT, SERVER_JS, waitForBuild } from '../../helpers/daemon'

let copy: string
let serverJs: string
let original: string
const running: ChildProcess[] = []

beforeAll(async () => {
  await waitForBuild(SERVER_JS)
  copy = mkdtempSync(join(tmpdir(), 'bridge-devreload-'))
  cpSync(join(ROOT, 'dist'), join(copy, 'dist'), { recursive: true })
  symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'))
  serverJs = join(copy, 'dist', 'server.js')
  original = readFileSync(serverJs, 'utf8')
})
afterEach(() => {
  for (const proc of running.splice(0)) proc.kill('SIGKILL')
  writeFileSync(serverJs, original)
})
afterAll(() => {
  rmSync(copy, { recursive: true, force: true })
})

function startDev() {
  const configDir = mkdtempSync(join(copy, 'config-'))
  const proc = spawn(process.execPath, [serverJs, '--dev'], {
    env: daemonEnv(configDir, 'node'),
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  running.push(proc)
  let out = ''
  proc.stdout?.on('data', (c: Buffer) => (out += c.toString('utf8')))
  proc.stderr?.on('data', (c: Buffer) => (out += c.toString('utf8')))
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)))
  const secret = () =>
    (JSON.parse(readFileSync(join(configDir, 'extension', 'auth.json'), 'utf8')) as { secret: string }).secret
  const listening = () =>
    [...out.matchAll(/bridge listening on http:\/\/127\.0\.0\.1:(\d+)/g)].map((m) => Number(m[1]))
  const health = async (port: number) =>
    (await (
      await fetch(`http://127.0.0.1:${port}/health`, { headers: { authorization: `Bearer ${secret()}` } })
    ).json()) as { mode: string; uptime: number }
  return { proc, output: () => out, exited, listening, health }
}

const rebuild = (extra: string) => appendFileSync(serverJs, `\n// rebuilt: ${extra}\n`)

describe('dev mode hot reload of the server files', () => {
  it('restarts the daemon on the same port after a rebuild, waits out a broken build, and stops cleanly', async () => {
    const dev = startDev()
    await expect.poll(() => dev.listening().length, { timeout: 15_000 }).toBe(1)
    const [port] = dev.listening()
    expect((await dev.health(port!)).mode).toBe('dev')

    rebuild('one')
    await expect.poll(() => dev.listening().length, { timeout: 15_000 }).toBe(2)
    expect(dev.listening()).toEqual([port, port])
    expect(dev.output()).toMatch(
      /server files changed: restarting the daemon[\s\S]*SIGTERM received, shutting down[\s\S]*bridge stopped/,
    )
    expect((await dev.health(port!)).mode).toBe('dev')

    // A build that does not run: the supervisor says so and keeps waiting for the next one.
    writeFileSync(serverJs, 'this is not javascript (\n')
    await expect
      .poll(() => dev.output(), { timeout: 15_000 })
      .toMatch(/the daemon exited \(code 1\); it starts again when the server files change/)
    await expect(fetch(`http://127.0.0.1:${port}/health`)).rejects.toThrow()
    expect(dev.proc.exitCode).toBeNull()
    writeFileSync(serverJs, original)
    rebuild('fixed')
    await expect.poll(() => dev.listening().length, { timeout: 15_000 }).toBe(3)
    expect(dev.listening().at(-1)).toBe(port)

    dev.proc.kill('SIGTERM')
    expect(await dev.exited).toBe(0)
    expect(dev.output()).toMatch(/SIGTERM received, stopping the daemon[\s\S]*bridge stopped/)
    await expect(fetch(`http://127.0.0.1:${port}/health`)).rejects.toThrow()
  })

  it('stops the daemon when the supervisor is killed outright', async () => {
    const dev = startDev()
    await expect.poll(() => dev.listening().length, { timeout: 15_000 }).toBe(1)
    const [port] = dev.listening()
    dev.proc.kill('SIGKILL')
    await dev.exited
    // The daemon sees its supervisor's channel close and shuts down, freeing the port.
    await expect
      .poll(
        () =>
          fetch(`http://127.0.0.1:${port}/health`).then(
            () => 'up',
            () => 'down',
          ),
        { timeout: 10_000 },
      )
      .toBe('down')
  })

  it('exits as the daemon does when the first start fails', async () => {
    const dev = startDev()
    await expect.poll(() => dev.listening().length, { timeout: 15_000 }).toBe(1)
    const [port] = dev.listening()
    const configDir = mkdtempSync(join(copy, 'config-'))
    const second = spawn(process.execPath, [serverJs, '--dev'], {
      env: daemonEnv(configDir, 'node', { PORT: String(port) }),
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    running.push(second)
    let out = ''
    second.stdout?.on('data', (c: Buffer) => (out += c.toString('utf8')))
    second.stderr?.on('data', (c: Buffer) => (out += c.toString('utf8')))
    const code = await new Promise<number | null>((resolve) => second.once('exit', (c) => resolve(c)))
    expect(code).toBe(1)
    expect(out).toMatch(/already in use/)
    dev.proc.kill('SIGTERM')
    expect(await dev.exited).toBe(0)
  })
})
