/**
 * `bridge stop`: the daemon holding the config folder's lock is stopped however it was started
 * (--background, foreground, the server binary, dev mode), and its pid file removed; a stale or broken
 * pid file (an older bridge's) is cleaned up without signalling anyone; a daemon of another folder on
 * the port is explained, not stopped.
 */
import { spawn } from 'node:child_process'
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { startDaemon, tempConfigDir, type RunningDaemon } from '../../helpers/daemon'
import { runCli } from './runCli'

const dirs: string[] = []
const daemons: RunningDaemon[] = []
const pids: number[] = []
afterEach(async () => {
  await Promise.all(daemons.splice(0).map((d) => d.stop()))
  for (const pid of pids.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // already gone
    }
  }
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})
const freshDir = () => {
  const dir = tempConfigDir()
  dirs.push(dir)
  return dir
}
const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

describe('bridge stop', () => {
  it('stops a --background daemon: SIGTERM, process gone, pid file removed, port free', async () => {
    const dir = freshDir()
    const started = await runCli(['start', '--background', '--port', '0'], dir)
    expect(started.code).toBe(0)
    const pid = Number(readFileSync(join(dir, 'server.pid'), 'utf8').trim())
    pids.push(pid)
    const port = (JSON.parse(readFileSync(join(dir, 'extension/server.json'), 'utf8')) as { port: number })
      .port
    expect(isAlive(pid)).toBe(true)

    const result = await runCli(['stop'], dir)
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    expect(result.stdout).toBe(`bridge stopped (pid ${pid}, port ${port})\n`)
    expect(isAlive(pid)).toBe(false)
    expect(existsSync(join(dir, 'server.pid'))).toBe(false)
    await expect(fetch(`http://127.0.0.1:${port}/health`)).rejects.toThrow()
    expect(readFileSync(join(dir, 'server.log'), 'utf8')).toMatch(/SIGTERM received, shutting down/)
  })

  it('removes a stale pid file whose process is gone, and signals nobody', async () => {
    const dir = freshDir()
    // A real process that has exited: its pid is certainly not ours to signal.
    const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' })
    await new Promise((resolve) => child.once('exit', resolve))
    writeFileSync(join(dir, 'server.pid'), `${child.pid}\n`)
    const result = await runCli(['stop'], dir)
    expect(result.code).toBe(0)
    expect(result.stdout).toBe(
      `bridge is not running: removed the stale pid file (process ${child.pid} is gone)\n`,
    )
    expect(existsSync(join(dir, 'server.pid'))).toBe(false)
  })

  it('does not signal a live process that is not bridge (a reused pid)', async () => {
    const dir = freshDir()
    const other = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' })
    pids.push(other.pid!)
    writeFileSync(join(dir, 'server.pid'), `${other.pid}\n`)
    const result = await runCli(['stop'], dir)
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/removed the stale pid file/)
    expect(isAlive(other.pid!)).toBe(true)
    expect(existsSync(join(dir, 'server.pid'))).toBe(false)
  })

  it('keeps the pid file and says so when the process ignores SIGTERM for 5 s', async () => {
    const dir = freshDir()
    // A stand-in named like the daemon's entry point that will not shut down.
    const script = join(dir, 'server.js')
    writeFileSync(script, "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000); console.log('up')\n")
    const stubborn = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'ignore'] })
    pids.push(stubborn.pid!)
    await new Promise((resolve) => stubborn.stdout.once('data', resolve))
    writeFileSync(join(dir, 'server.pid'), `${stubborn.pid}\n`)
    const result = await runCli(['stop'], dir)
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(
      `process ${stubborn.pid} did not exit within 5 s of SIGTERM; the pid file is kept.`,
    )
    expect(isAlive(stubborn.pid!)).toBe(true)
    expect(readFileSync(join(dir, 'server.pid'), 'utf8')).toBe(`${stubborn.pid}\n`)
  })

  it('reports a pid file that holds no process id and removes it', async () => {
    const dir = freshDir()
    writeFileSync(join(dir, 'server.pid'), 'not a pid\n')
    const result = await runCli(['stop'], dir)
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(
      `${join(dir, 'server.pid')} did not hold a process id ("not a pid"); removed it`,
    )
    expect(existsSync(join(dir, 'server.pid'))).toBe(false)
  })

  it.each([
    ['the foreground `bridge start`', 'cli', []],
    ['the server binary', 'server', []],
    ['the dev supervisor', 'server', ['--dev']],
  ] as const)(
    'stops the daemon of its folder started by %s, and its lock is free again',
    async (_, via, args) => {
      const daemon = await startDaemon({ via, args: [...args] })
      daemons.push(daemon)
      const exited = new Promise((resolve) => daemon.proc.once('exit', resolve))
      // No --port: the lock says where the daemon runs and which process it is.
      const result = await runCli(['stop'], daemon.configDir)
      expect(result.stderr).toBe('')
      expect(result.stdout).toBe(`bridge stopped (pid ${daemon.proc.pid}, port ${daemon.port})\n`)
      await exited
      expect(daemon.proc.exitCode).toBe(0)
      await expect(fetch(`http://127.0.0.1:${daemon.port}/health`)).rejects.toThrow()
      const again = await runCli(['stop'], daemon.configDir)
      expect(again.stdout).toMatch(/^bridge is not running \(no daemon holds /)
    },
  )

  it('explains a daemon of another config folder on the port and leaves it running', async () => {
    const daemon = await startDaemon()
    daemons.push(daemon)
    const result = await runCli(['stop', '--port', String(daemon.port)], freshDir())
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(`http://127.0.0.1:${daemon.port}`)
    expect((await daemon.fetch('/health')).status).toBe(200)
    expect(daemon.proc.exitCode).toBeNull()
  })

  it('says bridge is not running when no daemon holds the folder and nothing answers', async () => {
    const dir = freshDir()
    const daemon = await startDaemon()
    const port = daemon.port
    await daemon.stop()
    const result = await runCli(['stop', '--port', String(port)], dir)
    expect(result.code).toBe(0)
    expect(result.stdout).toBe(
      `bridge is not running (no daemon holds ${dir}, nothing answers on http://127.0.0.1:${port})\n`,
    )
  })

  it('refuses an invalid --port', async () => {
    const result = await runCli(['stop', '--port', 'abc'], freshDir())
    expect(result.code).toBe(1)
    expect(result.stderr).toBe('bridge: invalid port "abc" (expected 1-65535)\n')
  })
})
