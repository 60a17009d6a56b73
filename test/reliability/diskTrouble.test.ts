/**
 * The config directory's disk fills up (a small tmpfs, mounted by the test as root): calls still
 * answer, the outage is logged once and shown in /health and `bridge doctor`, nothing half-written is
 * left, and writing resumes when the disk does. (A tmpfs cannot be remounted read-only while the
 * daemon holds audit.log open for writing, so the full disk stands for both.)
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CLI_JS, daemonEnv, startDaemon, tempConfigDir, type RunningDaemon } from '../helpers/daemon'
import { FakeExtension, READY } from '../helpers/fakeExtension'
import { connectMcp, textOf, type McpConnection } from '../helpers/mcpClient'
import { echoPlugin, readAuditLog, report, tempFiles, writeConfig } from './support'

interface AuditLogHealth {
  ok: boolean
  error?: string
  failedEntries?: number
  waitingForRetry?: number
}

describe('disk trouble', () => {
  let root: string
  let configDir: string
  let daemon: RunningDaemon | undefined
  let mcp: McpConnection | undefined
  let ext: FakeExtension | undefined
  let n = 0

  beforeAll(async () => {
    root = tempConfigDir()
    configDir = join(root, 'disk')
    mkdirSync(configDir)
    // 2 MB: room for the plugin, config, auth and a few hundred audit lines.
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m,mode=0700', 'tmpfs', configDir])
    writeConfig(configDir, {
      plugins: [echoPlugin('echo', 1)],
      permissions: { echo: { permission: 'auto' } },
    })
    daemon = await startDaemon({ configDir, timeoutMs: 30_000 })
    ext = await FakeExtension.connect(daemon, {
      tabs: { echo: READY },
      autoAnswer: (params) => params.input,
    })
    mcp = await connectMcp(daemon)
  })
  afterAll(async () => {
    await mcp?.close().catch(() => undefined)
    await ext?.close()
    await daemon?.stop()
    spawnSync('umount', [configDir])
    rmSync(root, { recursive: true, force: true })
  })

  const call = async () => {
    const result = await mcp!.client.callTool({ name: 'echo_t0', arguments: { n } })
    expect(textOf(result)).toBe(`{"n":${n}}`)
    n++
  }
  const auditHealth = async () =>
    ((await (await daemon!.fetch('/health')).json()) as { auditLog: AuditLogHealth }).auditLog
  const outages = () => daemon!.output().match(/could not write audit\.log/g)?.length ?? 0
  // Commands run without blocking this process: its HTTP client must keep serving its own sockets.
  const runCli = (args: string[]) =>
    new Promise<{ status: number | null; output: string }>((resolve) => {
      const child = spawn(process.execPath, [CLI_JS, ...args], {
        env: daemonEnv(configDir, 'node', { PORT: undefined }),
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      let output = ''
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
      child.once('exit', (status) => resolve({ status, output }))
    })
  const doctor = () => runCli(['doctor', '--port', String(daemon!.port)])
  const panelChange = (permission: string) =>
    ext!.request('config.setToolPermission', { plugin: 'echo', tool: 't0', permission })
  const cliChange = (permission: string) =>
    runCli(['config', 'set', 'tool-permission.echo.t0', permission, '--port', String(daemon!.port)])

  /** Runs the outage: calls answer, one log line, health and doctor tell, config untouched. */
  async function duringOutage(kind: string, code: RegExp, outagesBefore: number) {
    const configBefore = readFileSync(join(configDir, 'config.json'), 'utf8')
    for (let i = 0; i < 60; i++) await call()
    expect(outages()).toBe(outagesBefore + 1)
    const health = await auditHealth()
    expect(health.ok).toBe(false)
    expect(health.error).toMatch(code)
    expect(health.failedEntries).toBeGreaterThan(1)
    const checked = await doctor()
    expect(checked.output).toMatch(/audit\.log cannot be written/)
    expect(checked.status).toBe(1)
    // Changes are refused whole: config.json as it was, no temp file beside it.
    const panel = await panelChange('ask')
    expect(panel.error?.message).toMatch(code)
    const cli = await cliChange('ask')
    expect(cli.status).not.toBe(0)
    expect(cli.output).toMatch(code)
    expect(readFileSync(join(configDir, 'config.json'), 'utf8')).toBe(configBefore)
    expect(tempFiles(configDir)).toEqual([])
    expect(tempFiles(join(configDir, 'extension'))).toEqual([])
    expect(existsSync(join(configDir, 'config.json.lock'))).toBe(false)
    report(`disk ${kind}`, {
      callsAnswered: 60,
      logLines: outages() - outagesBefore,
      failedEntries: health.failedEntries,
      waitingForRetry: health.waitingForRetry,
      doctorExit: checked.status,
    })
  }

  async function afterRecovery() {
    await call()
    // Healthy again once a group commit has put the lines on disk (on a busy machine, after the call).
    await expect.poll(async () => (await auditHealth()).ok, { timeout: 30_000 }).toBe(true)
    await daemon!.waitForOutput(/audit\.log is written again/, 5_000)
    const audit = readAuditLog(configDir)
    expect(audit.torn).toBe(0)
    // Every call so far is on disk, the ones refused during the outage included.
    expect(audit.lines.map((line) => line.entry?.tool)).toEqual(Array.from({ length: n }, () => 'echo_t0'))
    const panel = await panelChange('auto')
    expect(panel.error).toBeUndefined()
    expect(JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8'))).toMatchObject({
      permissions: { echo: { tools: { t0: 'auto' } } },
    })
  }

  it('keeps answering calls on a full disk, reports it once, and writes the refused entries once space is back', async () => {
    for (let i = 0; i < 5; i++) await call()
    // Fill the disk: the write stops at ENOSPC with the file as large as the disk allows.
    try {
      writeFileSync(join(configDir, 'filler'), Buffer.alloc(4 * 1024 * 1024, 1))
    } catch (error) {
      expect((error as NodeJS.ErrnoException).code).toBe('ENOSPC')
    }
    await duringOutage('full', /ENOSPC/, 0)
    rmSync(join(configDir, 'filler'))
    await afterRecovery()
  }, 120_000)
})
