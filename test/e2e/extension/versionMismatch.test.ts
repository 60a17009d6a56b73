import { cpSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterEach, describe, expect, it } from 'vitest'
import { BUILT_EXTENSION_DIR, launchBrowser, writeExtensionConnection } from '../../helpers/browser'
import { startDaemon, type RunningDaemon } from '../../helpers/daemon'
import { EXTENSION_VERSION, setExtensionVersion } from '../../helpers/extensionVersion'
import { createTeardown } from '../../helpers/teardown'
import { BROWSER_START_TIMEOUT_MS, scaled } from '../../helpers/timing'
import { runCli } from '../../integration/cli/runCli'

const STEP_TIMEOUT_MS = scaled(30_000)

// An extension and a daemon of different versions, as after `bridge update`: the daemon and the
// extension's files on disk are new, Chrome still runs the extension's old code. The side panel (from
// the extension's side: the version in the daemon's sync.full), `bridge status` and `bridge doctor`
// (from the daemon's side: the version the extension reports) each say it in one sentence with the fix.
describe('extension and daemon of different versions', () => {
  let teardown = createTeardown()
  afterEach(async () => {
    await teardown.run()
    teardown = createTeardown()
  })

  /** A real daemon and Chromium with a copy of the built extension that runs as `version`. */
  const start = async (version: string) => {
    const daemon: RunningDaemon = teardown.add(await startDaemon(), (d) => d.stop())
    const extensionDir = teardown.add(mkdtempSync(join(tmpdir(), 'bridge-ext-version-')), (dir) =>
      rmSync(dir, { recursive: true, force: true }),
    )
    cpSync(BUILT_EXTENSION_DIR, extensionDir, { recursive: true })
    writeExtensionConnection(extensionDir, { port: daemon.port, secret: daemon.secret })
    setExtensionVersion(extensionDir, version)
    const browser = teardown.add(await launchBrowser({ extensionDir }), (b) => b.close())
    const panel = await browser.openSidePanel()
    const health = async () =>
      (await (await daemon.fetch('/health')).json()) as { extensionVersion?: string; version: string }
    await expect
      .poll(async () => (await health()).extensionVersion, { timeout: STEP_TIMEOUT_MS })
      .toBe(version)
    const cli = (args: string[]) => runCli([...args, '--port', String(daemon.port)], daemon.configDir)
    return { daemon, extensionDir, browser, panel, health, cli }
  }
  const versionMessage = (panel: Page) => panel.getByTestId('version-message').innerText()

  it(
    'an extension older than the daemon: the panel, status and doctor say to reload it, and its button does',
    async () => {
      const { extensionDir, browser, panel, health, cli } = await start('0.0.9')
      await expect
        .poll(() => versionMessage(panel), { timeout: STEP_TIMEOUT_MS })
        .toBe(
          `The daemon was updated to ${EXTENSION_VERSION} but this extension still runs 0.0.9: reload the extension so it runs ${EXTENSION_VERSION}.`,
        )
      const status = await cli(['status'])
      expect(status.stdout).toMatch(
        new RegExp(
          `extension +connected, but the extension in the browser still runs 0\\.0\\.9, the daemon is ${EXTENSION_VERSION.replace(/\./g, '\\.')}: reload the extension`,
        ),
      )
      const doctor = await cli(['doctor'])
      expect(doctor.code).toBe(1)
      expect(doctor.stdout).toContain(
        `✗ the extension in the browser still runs 0.0.9, the daemon is ${EXTENSION_VERSION}\n    reload the extension: its Reload extension button in the side panel, or Reload in chrome://extensions`,
      )
      // `bridge start` has installed the daemon's version on disk; the button makes Chrome run it.
      cpSync(join(BUILT_EXTENSION_DIR, 'background.js'), join(extensionDir, 'background.js'))
      // Reloading the extension closes this panel page, which can end the click's own wait: that is the
      // button's effect (the daemon's view below is the check), not a failure.
      await panel
        .getByTestId('reload-extension')
        .click({ noWaitAfter: true })
        .catch((error: unknown) => {
          if (!/has been closed/.test(String(error))) throw error
        })
      await expect
        .poll(async () => (await health()).extensionVersion, { timeout: STEP_TIMEOUT_MS })
        .toBe(EXTENSION_VERSION)
      const after = await browser.openSidePanel()
      await expect
        .poll(() => after.getByTestId('connection-status').getAttribute('data-state'), {
          timeout: STEP_TIMEOUT_MS,
        })
        .toBe('connected')
      expect(await after.getByTestId('version-notice').count()).toBe(0)
      expect((await cli(['doctor'])).stdout).toContain(`✓ extension connected (${EXTENSION_VERSION})`)
    },
    BROWSER_START_TIMEOUT_MS + 4 * STEP_TIMEOUT_MS,
  )

  it(
    'an extension newer than the daemon: the panel and doctor say to restart the daemon from the updated bridge',
    async () => {
      const { panel, cli } = await start('99.0.0')
      await expect
        .poll(() => versionMessage(panel), { timeout: STEP_TIMEOUT_MS })
        .toBe(
          `This extension is 99.0.0 but the daemon that runs is an older ${EXTENSION_VERSION}: restart the daemon from the updated bridge with bridge stop and then bridge start.`,
        )
      expect(await panel.getByTestId('version-notice').getAttribute('data-fix')).toBe('restartDaemon')
      expect(await panel.getByTestId('reload-extension').count()).toBe(0)
      const doctor = await cli(['doctor'])
      expect(doctor.stdout).toContain(
        `✗ the extension in the browser is 99.0.0, newer than the daemon that runs (${EXTENSION_VERSION})\n    restart the daemon from the updated bridge: \`bridge stop\`, then \`bridge start\``,
      )
    },
    BROWSER_START_TIMEOUT_MS + 2 * STEP_TIMEOUT_MS,
  )
})
