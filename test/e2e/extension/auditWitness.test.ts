import { createHash } from 'node:crypto'
import {
  appendFileSync,
  copyFileSync,
  existsSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startDemoSite, type DemoSite } from '../../../examples/demo-site/server.mjs'
import { startDaemon, type RunningDaemon } from '../../helpers/daemon'
import { startLiveBridge, type LiveBridge } from '../../helpers/liveBridge'
import { connectMcp, type McpConnection } from '../../helpers/mcpClient'
import { BROWSER_START_TIMEOUT_MS, scaled } from '../../helpers/timing'

/** How long a check (a side-panel open, a reconnect) may take to show in the panel or the extension's storage. */
const CHECK_TIMEOUT_MS = scaled(30_000)
/** One step: a few calls, panel opens and perhaps a daemon restart on a loaded machine. */
const TEST_TIMEOUT_MS = scaled(180_000)

// The extension as the audit log's witness, as a user meets it: the real daemon, Chromium with the
// real extension, calls from an MCP client. Each tampering is done the way a process running as the
// user would do it (editing the files in the config folder); the side panel must then name it in a
// red banner that stays until acknowledged. Normal use, rotation and a restart never raise it.
describe('the audit witness in the extension', () => {
  let bridge: LiveBridge<DemoSite>
  let daemon: RunningDaemon
  let mcp: McpConnection
  let auditLog: string

  beforeAll(async () => {
    bridge = await startLiveBridge({ site: () => startDemoSite({ port: 0 }) })
    daemon = bridge.daemon
    mcp = await bridge.connect()
    auditLog = join(bridge.configDir, 'audit.log')
  }, BROWSER_START_TIMEOUT_MS)
  afterAll(() => bridge?.close())

  /** One audited call (refused as unknown: every invocation is audited). */
  const call = async (n: number) => {
    await mcp.client.callTool({ name: `browser_audit_probe_${n}`, arguments: {} })
  }
  const lines = () => readFileSync(auditLog, 'utf8').split('\n').filter(Boolean)
  /** Entries in the whole tree: the rotated-out hashes, audit.log.1 and audit.log. */
  const treeSize = () => {
    const hashes = join(bridge.configDir, 'audit.hashes')
    const older = join(bridge.configDir, 'audit.log.1')
    return (
      (existsSync(hashes) ? statSync(hashes).size / 32 : 0) +
      (existsSync(older) ? readFileSync(older, 'utf8').split('\n').filter(Boolean).length : 0) +
      lines().length
    )
  }
  /** The size of the checkpoint the extension keeps (null before its first). */
  const witnessedSize = async (): Promise<number | null> =>
    (await bridge.browser.serviceWorker()).evaluate(
      "chrome.storage.local.get('auditWitness').then((r) => r.auditWitness?.checkpoint?.size ?? null)",
    )
  /** Opens the side panel (which checks the log) and waits until the extension kept a checkpoint of `size`. */
  const openAndExpectGood = async (size: number) => {
    const panel = await bridge.browser.openSidePanel()
    await expect.poll(witnessedSize, { timeout: CHECK_TIMEOUT_MS }).toBe(size)
    await panel.getByTestId('connection-status').waitFor()
    expect(await panel.getByTestId('audit-alarm').count()).toBe(0)
    await panel.close()
  }
  /** Opens the side panel, waits for the banner, checks its words, acknowledges it and sees it go. */
  const openAndExpectAlarm = async (problem: string, headline: RegExp) => {
    const panel = await bridge.browser.openSidePanel()
    const alarm = panel.getByTestId('audit-alarm')
    await alarm.waitFor({ timeout: CHECK_TIMEOUT_MS })
    expect(await alarm.getAttribute('data-problem')).toBe(problem)
    expect(await panel.getByTestId('audit-alarm-headline').textContent()).toMatch(headline)
    expect(await panel.getByTestId('audit-alarm-last-good').textContent()).toMatch(/Last checked good: \S/)
    // It does not go by itself: another panel open still shows it.
    const second = await bridge.browser.openSidePanel()
    await second.getByTestId('audit-alarm').waitFor({ timeout: CHECK_TIMEOUT_MS })
    await second.close()
    await panel.getByTestId('audit-alarm-acknowledge').click()
    await alarm.waitFor({ state: 'detached', timeout: CHECK_TIMEOUT_MS })
    await panel.close()
  }

  it(
    'keeps the first checkpoint it sees and shows no banner in normal use',
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      for (let i = 0; i < 4; i++) await call(i)
      await openAndExpectGood(treeSize())
      await call(4)
      await openAndExpectGood(treeSize())
    },
  )

  it(
    'names an edited line as a rewrite, and is quiet again once acknowledged',
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      const text = lines()
      text[1] = text[1]!.replace(/"durationMs":\d+/, '"durationMs":98765')
      writeFileSync(auditLog, `${text.join('\n')}\n`)
      await openAndExpectAlarm('rewritten', /rewritten/)
      await call(5)
      await openAndExpectGood(treeSize())
    },
  )

  it('names a deleted line as a rewrite', { timeout: TEST_TIMEOUT_MS }, async () => {
    const text = lines()
    text.splice(2, 1)
    writeFileSync(auditLog, `${text.join('\n')}\n`)
    await openAndExpectAlarm('rewritten', /rewritten/)
    await openAndExpectGood(treeSize())
  })

  it('names a cut tail as a truncation', { timeout: TEST_TIMEOUT_MS }, async () => {
    writeFileSync(auditLog, `${lines().slice(0, -2).join('\n')}\n`)
    await openAndExpectAlarm('truncated', /truncated/)
    await openAndExpectGood(treeSize())
  })

  it('names an older copy of the log put back as a truncation', { timeout: TEST_TIMEOUT_MS }, async () => {
    const copy = join(bridge.configDir, 'audit.log.saved')
    copyFileSync(auditLog, copy)
    for (let i = 10; i < 13; i++) await call(i)
    await openAndExpectGood(treeSize())
    copyFileSync(copy, auditLog)
    rmSync(copy)
    await openAndExpectAlarm('truncated', /truncated/)
    await openAndExpectGood(treeSize())
  })

  it(
    'names a whole line another process appended after the daemon’s last write, though the tree extends the one kept',
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      await call(14)
      await openAndExpectGood(treeSize())
      // A forged entry, well formed, appended as a process running as the user would: the signed tree
      // the next check gets extends the checkpoint the extension kept; the daemon knows it did not write it.
      const forged = lines()
        .at(-1)!
        .replace(/"durationMs":\d+/, '"durationMs":4242')
      appendFileSync(auditLog, `${forged}\n`)
      await openAndExpectAlarm('changed', /Something other than bridge wrote to the audit log/)
      await call(15)
      await openAndExpectGood(treeSize())
    },
  )

  it(
    'shows no banner across a daemon restart and several rotations',
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      await mcp.close()
      await daemon.stop()
      // Small files: a few entries each, so these calls rotate audit.log more than twice.
      daemon = bridge.own(
        await startDaemon({
          via: 'cli',
          configDir: bridge.configDir,
          env: { BRIDGE_AUDIT_ROTATE_BYTES: '1200' },
        }),
        (d) => d.stop(),
      )
      mcp = bridge.own(await connectMcp({ url: daemon.url, secret: daemon.secret }), (c) => c.close())
      // The reconnect itself is a check.
      await expect.poll(witnessedSize, { timeout: CHECK_TIMEOUT_MS }).toBe(treeSize())
      for (let i = 20; i < 45; i++) await call(i)
      expect(statSync(join(bridge.configDir, 'audit.hashes')).size).toBeGreaterThan(0)
      await openAndExpectGood(treeSize())
    },
  )

  it(
    'names a whole log replaced by a consistent one under a new key',
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      await mcp.close()
      await daemon.stop()
      // What an attacker with the user's files would do: a fresh log, well formed, signed by a key of
      // its own (the daemon makes one when there is none), with nothing left of the old tree.
      for (const name of [
        'audit.key',
        'audit.hashes',
        'audit.log.1',
        'audit.checkpoints',
        'audit.checkpoints.1',
      ])
        rmSync(join(bridge.configDir, name), { force: true })
      const fake = Array.from({ length: 3 }, (_, i) =>
        JSON.stringify({
          durationMs: 1,
          plugin: 'browser',
          success: true,
          timestamp: new Date(Date.now() - 60_000 + i).toISOString(),
          tool: 'browser_list_tabs',
        }),
      )
      writeFileSync(auditLog, `${fake.join('\n')}\n`, { mode: 0o600 })
      const before = createHash('sha256').update(readFileSync(auditLog)).digest('hex')
      daemon = bridge.own(await startDaemon({ via: 'cli', configDir: bridge.configDir }), (d) => d.stop())
      expect(createHash('sha256').update(readFileSync(auditLog)).digest('hex')).toBe(before)
      await openAndExpectAlarm('new_key', /new key/)
      await openAndExpectGood(3)
    },
  )
})
