// The end-to-end browser: Debian's Chromium, headless, driven by playwright-core, with the built bridge
// extension loaded unpacked. One launch per test file; `close()` always ends the browser and removes
// the profile directory (and the temporary extension copy when the harness made one).
//
// Headless note: Chromium 156's `--headless` is the "new" headless mode (the full browser without a
// window), which loads unpacked extensions and runs their service workers. playwright-core passes
// `--headless` for `headless: true`, so no channel or extra flag is needed; but Playwright's default
// `--disable-extensions` must go (see below).
import { chromium, type BrowserContext, type Page, type Worker } from 'playwright-core'
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { EXTENSION_ID } from '../../src/protocol/constants'
import { bundleTestWorker, type ConnectionTiming } from './testWorker'

export const CHROMIUM_PATH = process.env.BRIDGE_CHROMIUM ?? '/usr/bin/chromium'
/** `npm run build` output that `bridge start` copies into `<config>/extension/`. */
export const BUILT_EXTENSION_DIR = join(import.meta.dirname, '..', '..', 'dist', 'extension')
export const SIDE_PANEL_URL = `chrome-extension://${EXTENSION_ID}/sidepanel.html`

export interface LaunchOptions {
  /**
   * An extension folder to load as it is, e.g. `<config>/extension` written by `bridge start`. When
   * absent, the harness copies `dist/extension` into a temp folder and writes `auth.json` and
   * `server.json` itself from `secret` and `port`.
   */
  extensionDir?: string
  /** Port written to `server.json` of the temp copy (ignored with `extensionDir`). */
  port?: number
  /** Secret written to `auth.json` of the temp copy (ignored with `extensionDir`). */
  secret?: string
  /**
   * Turns on WebMCP (`document.modelContext`, sites' own tools): Chromium 156 exposes it behind
   * `--enable-features=WebMCPTesting`.
   */
  webmcp?: boolean
  /**
   * Shortens the extension's keepalive clock (a ping every 20 s, a silent socket given up after 45 s)
   * by rebuilding the worker of the temp copy from source (test/helpers/testWorker.ts). Not with
   * `extensionDir`.
   */
  connectionTiming?: ConnectionTiming
}

export interface BrowserHarness {
  context: BrowserContext
  /** The folder Chromium loaded the extension from. */
  extensionDir: string
  /** The extension's service worker (re-resolved after an extension reload). */
  serviceWorker(): Promise<Worker>
  /**
   * Stops the extension's service worker as Chrome does when it is idle (the next extension event
   * starts it again); resolves once Chrome has stopped it.
   */
  stopServiceWorker(): Promise<void>
  /** Opens the side panel page in a normal tab, as tests click it. */
  openSidePanel(): Promise<Page>
  /** Opens a new tab, optionally navigated to `url`. */
  newPage(url?: string): Promise<Page>
  /**
   * Waits until the extension has registered the plugin's adapter, so that a tab opened from now on
   * starts with it (tabs opened earlier are "not isolated" until reloaded).
   */
  waitForAdapter(plugin: string, timeoutMs?: number): Promise<void>
  /** Closes the browser and removes the profile (and the temp extension copy). Safe to call twice. */
  close(): Promise<void>
}

/** Writes the files the service worker reads beside its own code: `auth.json` and `server.json`. */
export function writeExtensionConnection(dir: string, opts: { port?: number; secret?: string }): void {
  if (opts.secret !== undefined)
    writeFileSync(join(dir, 'auth.json'), JSON.stringify({ secret: opts.secret }), { mode: 0o600 })
  if (opts.port !== undefined) writeFileSync(join(dir, 'server.json'), JSON.stringify({ port: opts.port }))
}

/** Copies the built extension into a fresh temp folder (auth/server files written when given). */
export function prepareExtensionCopy(opts: { port?: number; secret?: string } = {}): string {
  if (!existsSync(join(BUILT_EXTENSION_DIR, 'manifest.json')))
    throw new Error(`no built extension at ${BUILT_EXTENSION_DIR}: run npm run build first`)
  const dir = mkdtempSync(join(tmpdir(), 'bridge-ext-'))
  cpSync(BUILT_EXTENSION_DIR, dir, { recursive: true })
  writeExtensionConnection(dir, opts)
  return dir
}

export async function launchBrowser(opts: LaunchOptions = {}): Promise<BrowserHarness> {
  const ownExtensionDir = opts.extensionDir === undefined
  if (opts.connectionTiming && !ownExtensionDir)
    throw new Error('connectionTiming rebuilds the temp copy of the extension: not with extensionDir')
  const extensionDir = opts.extensionDir ?? prepareExtensionCopy(opts)
  if (opts.connectionTiming) {
    try {
      await bundleTestWorker(extensionDir, { connectionTiming: opts.connectionTiming })
    } catch (err) {
      rmSync(extensionDir, { recursive: true, force: true })
      throw err
    }
  }
  const userDataDir = mkdtempSync(join(tmpdir(), 'bridge-profile-'))
  // Developer mode, as for any user who loads an unpacked extension. Without it Chromium disables a
  // command-line extension when it reloads itself (DISABLE_UNSUPPORTED_DEVELOPER_EXTENSION).
  mkdirSync(join(userDataDir, 'Default'), { recursive: true })
  writeFileSync(
    join(userDataDir, 'Default', 'Preferences'),
    JSON.stringify({ extensions: { ui: { developer_mode: true } } }),
  )
  const cleanupDirs = (): void => {
    rmSync(userDataDir, { recursive: true, force: true })
    if (ownExtensionDir) rmSync(extensionDir, { recursive: true, force: true })
  }
  let context: BrowserContext
  try {
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      // Playwright adds --disable-extensions by default. The extension still loads through
      // --load-extension, but chrome.runtime.reload() (POST /extension/reload) then unloads it for good.
      ignoreDefaultArgs: ['--disable-extensions'],
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        `--disable-extensions-except=${extensionDir}`,
        `--load-extension=${extensionDir}`,
        ...(opts.webmcp ? ['--enable-features=WebMCPTesting'] : []),
      ],
    })
  } catch (err) {
    cleanupDirs()
    throw err
  }
  let closed = false
  const close = async (): Promise<void> => {
    if (closed) return
    closed = true
    try {
      await context.close()
    } finally {
      cleanupDirs()
    }
  }

  const serviceWorker = async (): Promise<Worker> => {
    const prefix = `chrome-extension://${EXTENSION_ID}/`
    const found = context.serviceWorkers().find((w) => w.url().startsWith(prefix))
    if (found) return found
    return context.waitForEvent('serviceworker', {
      predicate: (w) => w.url().startsWith(prefix),
      timeout: 15_000,
    })
  }

  try {
    await serviceWorker()
  } catch (err) {
    await close()
    throw new Error(`the bridge extension's service worker did not start: ${String(err)}`)
  }

  return {
    context,
    extensionDir,
    serviceWorker,
    async stopServiceWorker() {
      const browser = context.browser()
      if (!browser) throw new Error('no browser connection to stop the service worker with')
      const cdp = await browser.newBrowserCDPSession()
      try {
        const workers = async () =>
          (
            (await cdp.send('Target.getTargets')) as {
              targetInfos: { targetId: string; type: string; url: string }[]
            }
          ).targetInfos.filter(
            (t) =>
              t.type === 'service_worker' && t.url === `chrome-extension://${EXTENSION_ID}/background.js`,
          )
        const [worker] = await workers()
        if (!worker) throw new Error("the extension's service worker is not running")
        await cdp.send('Target.closeTarget', { targetId: worker.targetId })
        for (let i = 0; i < 100 && (await workers()).some((t) => t.targetId === worker.targetId); i++)
          await new Promise((resolve) => setTimeout(resolve, 50))
      } finally {
        await cdp.detach().catch(() => undefined)
      }
    },
    async openSidePanel() {
      // A tab in the same window (a separate window would change which window has focus, and so the
      // tab a tool call runs in). Clicks in it are slower while another tab is in front.
      const page = await context.newPage()
      await page.goto(SIDE_PANEL_URL)
      return page
    },
    async newPage(url) {
      const page = await context.newPage()
      if (url !== undefined) await page.goto(url)
      return page
    },
    async waitForAdapter(plugin, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs
      for (;;) {
        const ids = await (
          await serviceWorker()
        )
          .evaluate(async () => (await chrome.scripting.getRegisteredContentScripts()).map((s) => s.id))
          .catch(() => [] as string[])
        if (ids.includes(`adapter:${plugin}`)) break
        if (Date.now() > deadline) throw new Error(`the extension registered no adapter for ${plugin}`)
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
      // A document must start after the registration plus the extension's clock margin.
      await new Promise((resolve) => setTimeout(resolve, 200))
    },
    close,
  }
}
