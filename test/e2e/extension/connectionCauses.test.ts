import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { randomBytes } from 'node:crypto'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchBrowser, prepareExtensionCopy, type BrowserHarness } from '../../helpers/browser'
import { startDaemon, tempConfigDir, type RunningDaemon } from '../../helpers/daemon'
import { createTeardown } from '../../helpers/teardown'
import { BROWSER_START_TIMEOUT_MS, scaled } from '../../helpers/timing'
import { runCli } from '../../integration/cli/runCli'

const STEP_TIMEOUT_MS = scaled(45_000)

// Every way the extension and the daemon can fail to meet, each said in one sentence with the one thing
// to do: by the side panel (real Chromium, the real extension) and by `bridge doctor` / `bridge status`
// (the real daemon started with `bridge start`). The table in docs/extension.md lists them; an extension
// and a daemon of different versions are in versionMismatch.test.ts.
describe('connection problems explain themselves', () => {
  const teardown = createTeardown()
  const home = mkdtempSync(join(tmpdir(), 'bridge-home-'))
  const configDir = tempConfigDir()
  const extensionDir = join(configDir, 'extension')
  let daemon: RunningDaemon
  let browser: BrowserHarness
  let panel: Page

  const cli = (args: string[]) =>
    runCli(args, configDir, { HOME: home, XDG_CONFIG_HOME: undefined, APPDATA: undefined })
  const startOwnDaemon = () =>
    startDaemon({ via: 'cli', configDir, args: ['--port', '0'], env: { HOME: home } })
  const state = (p: Page = panel) => p.getByTestId('connection-status').getAttribute('data-state')
  const message = (p: Page = panel) => p.getByTestId('connection-message').innerText()

  beforeAll(async () => {
    daemon = await startOwnDaemon()
  }, STEP_TIMEOUT_MS)
  afterAll(async () => {
    await teardown.run()
    await daemon?.stop()
    rmSync(configDir, { recursive: true, force: true })
    rmSync(home, { recursive: true, force: true })
  })

  it('(g) a browser profile without the extension: doctor and status say to load the folder', async () => {
    const doctor = await cli(['doctor', '--port', String(daemon.port)])
    expect(doctor.stdout).toMatch(
      /^! no bridge extension has asked this daemon since it started \d+ (s|min) ago\n/m,
    )
    expect(doctor.stdout).toContain(
      `    in the browser profile you use, load ${extensionDir} unpacked in chrome://extensions (Developer mode on); an extension already loaded asks within 30 s\n`,
    )
    const status = await cli(['status', '--port', String(daemon.port)])
    expect(status.stdout).toMatch(
      /^ {2}extension +not connected: no bridge extension has asked this daemon since it started .*: in the browser profile you use, load /m,
    )
  })

  it(
    'the extension loaded from the daemon’s own folder connects, and doctor says so',
    async () => {
      browser = teardown.add(await launchBrowser({ extensionDir }), (b) => b.close())
      panel = await browser.openSidePanel()
      await expect.poll(() => state(), { timeout: STEP_TIMEOUT_MS }).toBe('connected')
      expect((await cli(['doctor', '--port', String(daemon.port)])).stdout).toMatch(/^✓ extension connected/m)
    },
    BROWSER_START_TIMEOUT_MS + STEP_TIMEOUT_MS,
  )

  it(
    '(f) a second daemon for the same folder is refused, and the panel stays with the first',
    async () => {
      const second = await cli(['start', '--port', '0'])
      expect(second.code).toBe(1)
      expect(second.stderr).toContain(
        `is already running for ${configDir} (pid ${daemon.proc.pid}, port ${daemon.port}, since `,
      )
      expect(second.stderr).toContain('one daemon per config folder: `bridge stop` stops it')
      expect(await state()).toBe('connected')
      const health = (await (await daemon.fetch('/health')).json()) as { extensionConnected: boolean }
      expect(health.extensionConnected).toBe(true)
    },
    STEP_TIMEOUT_MS,
  )

  it(
    '(d) a secret that changed: the extension loaded from the folder picks up the new one by itself',
    async () => {
      const before = Date.now()
      const rotated = await cli(['config', 'rotate-secret', '--confirm', '--port', String(daemon.port)])
      expect(rotated.code, rotated.stderr).toBe(0)
      const secret = (JSON.parse(readFileSync(join(extensionDir, 'auth.json'), 'utf8')) as { secret: string })
        .secret
      expect(secret).not.toBe(daemon.secret)
      // Connected again, after proving the daemon with the new secret.
      const health = async () =>
        (await (
          await fetch(`${daemon.url}/health`, { headers: { authorization: `Bearer ${secret}` } })
        ).json()) as { extensionConnected: boolean; extensionSightings?: { provenAt?: number } }
      await expect
        .poll(
          async () => {
            const h = await health()
            return h.extensionConnected && (h.extensionSightings?.provenAt ?? 0) >= before
          },
          { timeout: STEP_TIMEOUT_MS },
        )
        .toBe(true)
      expect(await state()).toBe('connected')
      expect((await cli(['status', '--port', String(daemon.port)])).stdout).toMatch(
        /^ {2}extension +connected$/m,
      )
    },
    2 * STEP_TIMEOUT_MS,
  )

  it(
    '(a) the daemon not running, then (b) started on another port: the panel says which port it tries and follows the new one; doctor names the port the daemon moved to',
    async () => {
      const oldPort = daemon.port
      await daemon.stop()
      await expect.poll(() => state(), { timeout: STEP_TIMEOUT_MS }).toBe('unreachable')
      expect(await message()).toBe(
        `No bridge daemon answers on 127.0.0.1:${oldPort}: start it with bridge start.`,
      )
      const notRunning = await cli(['doctor', '--port', String(oldPort)])
      expect(notRunning.code).toBe(1)
      expect(notRunning.stdout).toContain(
        `✗ bridge is not running: nothing answers on http://127.0.0.1:${oldPort} and no daemon holds ${configDir}\n    start it: \`bridge start --port ${oldPort}\`\n`,
      )
      daemon = await startOwnDaemon()
      expect(daemon.port).not.toBe(oldPort)
      await expect.poll(() => state(), { timeout: STEP_TIMEOUT_MS }).toBe('connected')
      const elsewhere = await cli(['doctor', '--port', String(oldPort)])
      expect(elsewhere.stdout).toContain(
        `✗ nothing answers on http://127.0.0.1:${oldPort}: the daemon of ${configDir} runs on port ${daemon.port} (pid ${daemon.proc.pid})\n    check that one: \`bridge doctor --port ${daemon.port}\`\n`,
      )
    },
    4 * STEP_TIMEOUT_MS,
  )

  it(
    '(c) an extension of another config folder: the panel cannot tell it from another program and says to run doctor; doctor tells it and says which folder to load',
    async () => {
      // What another config folder's extension holds: its own secret; its server.json names this port.
      const otherSecret = randomBytes(32).toString('hex')
      const copy = teardown.add(prepareExtensionCopy({ port: daemon.port, secret: otherSecret }), (dir) =>
        rmSync(dir, { recursive: true, force: true }),
      )
      const other = teardown.add(await launchBrowser({ extensionDir: copy }), (b) => b.close())
      const otherPanel = await other.openSidePanel()
      await expect.poll(() => state(otherPanel), { timeout: STEP_TIMEOUT_MS }).toBe('impostor')
      expect(await message(otherPanel)).toBe(
        `The server on 127.0.0.1:${daemon.port} does not hold this extension’s secret (a bridge daemon of another config folder, one whose secret changed, or another program), so nothing was sent to it: run bridge doctor, which says which and what to do.`,
      )
      // The first browser must not answer for it: this daemon's own extension steps aside.
      await browser.close()
      await expect
        .poll(
          async () =>
            ((await (await daemon.fetch('/health')).json()) as { extensionConnected?: boolean })
              .extensionConnected,
          { timeout: STEP_TIMEOUT_MS },
        )
        .toBe(false)
      await expect
        .poll(async () => (await cli(['doctor', '--port', String(daemon.port)])).stdout, {
          timeout: STEP_TIMEOUT_MS,
        })
        .toMatch(
          /^✗ the bridge extension in the browser holds another secret than this config folder \(asked \d+ s ago\): it was loaded from another config folder, or from a copy older than this secret$/m,
        )
      const doctor = await cli(['doctor', '--port', String(daemon.port)])
      expect(doctor.code).toBe(1)
      expect(doctor.stdout).toContain(
        `    in chrome://extensions, remove the bridge extension and load ${extensionDir} unpacked\n`,
      )
      // Loading this folder's extension is what the copy's auth.json now says: it connects at once.
      writeFileSync(join(copy, 'auth.json'), JSON.stringify({ secret: daemon.secret }), { mode: 0o600 })
      await expect.poll(() => state(otherPanel), { timeout: STEP_TIMEOUT_MS }).toBe('connected')
      expect((await cli(['doctor', '--port', String(daemon.port)])).stdout).toMatch(/^✓ extension connected/m)
    },
    BROWSER_START_TIMEOUT_MS + 4 * STEP_TIMEOUT_MS,
  )
})
