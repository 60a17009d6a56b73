/**
 * `bridge logs`: the end of a real daemon's server.log, `--plugin` keeping the `[plugin:<name>]` lines
 * a plugin's log entries produce, `--lines`, and `--follow` across a rollover to server.log.1.
 */
import { spawn } from 'node:child_process'
import { appendFileSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CLI_JS, ROOT, daemonEnv, tempConfigDir, waitForBuild } from '../../helpers/daemon'
import { FakeExtension, READY } from '../../helpers/fakeExtension'
import { startFixture, type Fixture } from '../toolcall/fixture'
import { runCli } from './runCli'

describe('bridge logs', () => {
  let fx: Fixture
  const dirs: string[] = []
  beforeAll(async () => {
    fx = await startFixture('node', {
      plugins: [
        { name: 'notes', tools: [{ name: 'list_notes' }] },
        { name: 'mail', tools: [{ name: 'send' }] },
      ],
    })
    const ext = await FakeExtension.connect(fx.daemon, { tabs: { notes: READY, mail: READY } })
    const entry = (plugin: string, message: string) => ({ plugin, level: 'info', message, ts: Date.now() })
    ext.notify('plugin.log', {
      entries: [entry('notes', 'notes first'), entry('mail', 'mail only'), entry('notes', 'notes second')],
    })
    const log = join(fx.configDir, 'server.log')
    const deadline = Date.now() + 10_000
    while (!readFileSync(log, 'utf8').includes('notes second') && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50))
    await ext.close()
  })
  afterAll(async () => {
    await fx?.stop()
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
  })
  const cli = (args: string[]) => runCli(['logs', ...args], fx.configDir)

  it('prints the end of server.log', async () => {
    const result = await cli([])
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/\[daemon\] bridge listening on http:\/\/127\.0\.0\.1:\d+/)
    expect(result.stdout).toContain('[plugin:notes] notes first')
    expect(result.stdout).not.toContain(fx.daemon.secret)
    const last = await cli(['--lines', '1'])
    expect(last.stdout.trimEnd().split('\n')).toHaveLength(1)
  })

  it('--plugin keeps only that plugin’s lines', async () => {
    const result = await cli(['--plugin', 'notes'])
    expect(result.code).toBe(0)
    const lines = result.stdout.trimEnd().split('\n')
    expect(lines).toHaveLength(2)
    expect(lines[0]).toMatch(/^\S+Z INFO\s+\[plugin:notes\] notes first$/)
    expect(lines[1]).toMatch(/\[plugin:notes\] notes second$/)
    const one = await cli(['--plugin', 'notes', '--lines', '1'])
    expect(one.stdout).toMatch(/notes second\n$/)
    expect(one.stdout).not.toContain('notes first')
    expect((await cli(['--plugin', 'mail'])).stdout).toMatch(/\[plugin:mail\] mail only\n$/)
  })

  it('refuses bad --lines and --plugin values, and a missing log', async () => {
    const lines = await cli(['--lines', '0'])
    expect(lines.code).toBe(1)
    expect(lines.stderr).toContain('--lines must be a positive integer (got "0")')
    const negative = await cli(['--lines', '-3'])
    expect(negative.code).toBe(1)
    expect(negative.stderr).toBe('bridge: --lines must be a positive integer (got "-3")\n')
    const plugin = await cli(['--plugin', 'Not A Name'])
    expect(plugin.code).toBe(1)
    expect(plugin.stderr).toContain('"Not A Name" is not a plugin name')
    const nope = await cli(['--plugin', 'nope'])
    expect(nope.code).toBe(1)
    expect(nope.stderr).toContain('there is no plugin "nope" (plugins: mail, notes)')
    const empty = tempConfigDir()
    dirs.push(empty)
    const missing = await runCli(['logs'], empty)
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain(`no log at ${join(empty, 'server.log')} yet`)
  })

  it('--follow prints new lines, filtered, across a rollover to server.log.1, until Ctrl-C', async () => {
    const dir = tempConfigDir()
    dirs.push(dir)
    const log = join(dir, 'server.log')
    writeFileSync(log, '2026-01-01T00:00:00.000Z INFO  [plugin:notes] before\n')
    await waitForBuild(CLI_JS)
    const proc = spawn(process.execPath, [CLI_JS, 'logs', '-f', '--plugin', 'notes'], {
      cwd: ROOT,
      env: daemonEnv(dir, 'node'),
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    proc.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')))
    const exited = new Promise<number | null>((resolve) => proc.once('exit', resolve))
    try {
      await expect.poll(() => out, { timeout: 10_000 }).toContain('[plugin:notes] before')
      appendFileSync(log, 'x INFO  [plugin:mail] not this\nx INFO  [plugin:notes] appended\n')
      await expect.poll(() => out, { timeout: 10_000 }).toContain('[plugin:notes] appended')
      // What the daemon does at 10 MB: a last line, rename to server.log.1, a fresh server.log.
      appendFileSync(log, 'x INFO  [plugin:notes] last of the old file\n')
      renameSync(log, `${log}.1`)
      writeFileSync(log, 'x INFO  [plugin:notes] first of the new file\n')
      await expect.poll(() => out, { timeout: 10_000 }).toContain('first of the new file')
      appendFileSync(log, 'x INFO  [plugin:notes] after the rollover\n')
      await expect.poll(() => out, { timeout: 10_000 }).toContain('after the rollover')
    } finally {
      proc.kill('SIGINT')
    }
    expect(await exited).toBe(0)
    expect(
      out
        .split('\n')
        .filter(Boolean)
        .map((line) => line.replace(/^.*\] /, '')),
    ).toEqual(['before', 'appended', 'last of the old file', 'first of the new file', 'after the rollover'])
  })
})
