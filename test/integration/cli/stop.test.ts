/**
 * `bridge stop`: a --background daemon is stopped and its pid file removed; a stale or broken pid
 * file is cleaned up without signalling anyone; a foreground daemon is explained, not stopped.
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
    expect(result.stdout).toBe(`bridge stopped (pid ${pid})\n`)
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

  it('explains that a daemon started without --background cannot be stopped this way', async () => {
    const daemon = await startDaemon()
    daemons.push(daemon)
    const result = await runCli(['stop', '--port', String(daemon.port)], daemon.configDir)
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(
      new RegExp(
        `a bridge daemon answers on http://127\\.0\\.0\\.1:${daemon.port} but there is no .*server\\.pid: it was not started with \`bridge start --background\``,
      ),
    )
    expect((await daemon.fetch('/health')).status).toBe(200)
    expect(daemon.proc.exitCode).toBeNull()
  })

  it('says bridge is not running when there is no pid file and nothing answers', async () => {
    const dir = freshDir()
    const daemon = await startDaemon()
    const port = daemon.port
    await daemon.stop()
    const result = await runCli(['stop', '--port', String(port)], dir)
    expect(result.code).toBe(0)
    expect(result.stdout).toBe(
      `bridge is not running (no pid file in ${dir}, nothing answers on http://127.0.0.1:${port})\n`,
    )
  })

  it('refuses an invalid --port', async () => {
    const result = await runCli(['stop', '--port', 'abc'], freshDir())
    expect(result.code).toBe(1)
    expect(result.stderr).toBe('bridge: invalid port "abc" (expected 1-65535)\n')
  })
})
