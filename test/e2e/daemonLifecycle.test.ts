import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startDemoSite } from '../../examples/demo-site/server.mjs'
import { launchBrowser, type BrowserHarness } from '../helpers/browser'
import { CLI_JS, daemonEnv, ROOT, startDaemon, tempConfigDir, type RunningDaemon } from '../helpers/daemon'
import { connectMcp, textOf } from '../helpers/mcpClient'
import { buildFixturePlugin, type BuiltPlugin } from './support/fixturePlugin'

const run = promisify(execFile)

// The extension and the daemon over time: the daemon restarts (on another port), the extension is
// told to reload, the secret is rotated. Each time the extension must find its way back on its own.
describe('extension and daemon over time', () => {
  let configDir: string
  let plugin: BuiltPlugin
  let daemon: RunningDaemon
  let browser: BrowserHarness
  let site: { url: string; close: () => Promise<void> }
  let tab: Page

  beforeAll(async () => {
    configDir = tempConfigDir()
    plugin = await buildFixturePlugin({ configDir })
    // Every call allowed, so each step can prove the whole chain with one tool call.
    const file = join(configDir, 'config.json')
    const config = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>
    writeFileSync(file, JSON.stringify({ ...config, permissions: { notes: { permission: 'auto' } } }), {
      mode: 0o600,
    })
    daemon = await startDaemon({ via: 'cli', configDir })
    site = await startDemoSite({ port: 0 })
    browser = await launchBrowser({ extensionDir: join(configDir, 'extension') })
    tab = await browser.newPage(`${site.url}/login?user=gina`)
  })
  afterAll(async () => {
    await browser?.close()
    await daemon?.stop()
    await site?.close()
    plugin?.remove()
    if (configDir) rmSync(configDir, { recursive: true, force: true })
  })

  const health = async (secret = daemon.secret) =>
    (await (await daemon.fetch('/health', { headers: { authorization: `Bearer ${secret}` } })).json()) as {
      extensionConnected?: boolean
      pluginDetails?: Array<{ name: string; tabState: string }>
    }
  const notesState = async (secret?: string) =>
    (await health(secret)).pluginDetails?.find((p) => p.name === 'notes')?.tabState
  const whoami = async (secret = daemon.secret) => {
    const mcp = await connectMcp({ url: daemon.url, secret })
    try {
      return textOf(await mcp.client.callTool({ name: 'notes_whoami', arguments: {} }))
    } finally {
      await mcp.close()
    }
  }

  it('connects to the daemon that bridge start set up and serves the open tab once it is reloaded', async () => {
    // The tab opened while the extension was still starting, before it registered the plugin's
    // adapter: it is not isolated until reloaded.
    await browser.waitForAdapter('notes')
    await tab.reload()
    await expect.poll(notesState, { timeout: 15_000 }).toBe('ready')
    expect(JSON.parse(await whoami())).toEqual({ user: 'gina' })
  })

  it('picks up a plugin built while the daemon runs and follows its readiness in the open tab', async () => {
    const good = await buildFixturePlugin({
      source: join(ROOT, 'test/fixtures/plugins/good'),
      configDir,
      port: daemon.port,
    })
    try {
      const goodState = async () => (await health()).pluginDetails?.find((p) => p.name === 'good')?.tabState
      // The demo tab on 127.0.0.1 matches; with its tools off the new plugin runs nothing there.
      await expect.poll(goodState, { timeout: 15_000 }).toBe('unavailable')
      await run(
        process.execPath,
        [CLI_JS, 'config', 'set', 'plugin-permission.good', 'auto', '--port', String(daemon.port)],
        { env: daemonEnv(configDir, 'node'), timeout: 30_000 },
      )
      // Turned on, it runs in documents loaded from then on: the open tab gets it when reloaded.
      await browser.waitForAdapter('good')
      await tab.reload()
      // The fixture is ready only once its page flag is set.
      await new Promise((resolve) => setTimeout(resolve, 2_500))
      expect(await goodState()).toBe('unavailable')
      await tab.evaluate(() => ((window as unknown as { fixtureReady: boolean }).fixtureReady = true))
      await expect.poll(goodState, { timeout: 15_000 }).toBe('ready')
      expect(await notesState()).toBe('ready')
    } finally {
      good.remove()
    }
  })

  it('reconnects on its own after the daemon restarts, even on another port', async () => {
    const panel = await browser.openSidePanel()
    await daemon.stop()
    await expect
      .poll(() => panel.getByTestId('connection-status').getAttribute('data-state'), { timeout: 10_000 })
      .toBe('unreachable')
    const message = panel.getByTestId('connection-message')
    expect(await message.textContent()).toContain('start it with bridge start.')
    // The command is shown as code, never with raw backticks.
    expect(await message.locator('code').textContent()).toBe('bridge start')
    daemon = await startDaemon({ via: 'cli', configDir })
    await expect.poll(async () => (await health()).extensionConnected, { timeout: 20_000 }).toBe(true)
    await expect.poll(notesState, { timeout: 10_000 }).toBe('ready')
    await expect
      .poll(() => panel.getByTestId('connection-status').getAttribute('data-state'))
      .toBe('connected')
    expect(JSON.parse(await whoami())).toEqual({ user: 'gina' })
    await panel.close()
  })

  it('reloads on POST /extension/reload and comes back connected', async () => {
    const panel = await browser.openSidePanel()
    const closed = new Promise<void>((resolve) => panel.once('close', () => resolve()))
    const connectedBefore = daemon.output().match(/extension connected/g)?.length ?? 0
    const res = await daemon.fetch('/extension/reload', { method: 'POST' })
    expect(res.status).toBe(202)
    expect(await res.json()).toEqual({ ok: true })
    // Chrome closes the extension's pages when it reloads.
    await closed
    // Wait for the new connection: until the old socket is closed, /health may still report the old one.
    await expect
      .poll(() => daemon.output().match(/extension connected/g)?.length ?? 0, { timeout: 20_000 })
      .toBe(connectedBefore + 1)
    await expect.poll(async () => (await health()).extensionConnected, { timeout: 20_000 }).toBe(true)
    // The reloaded extension does not trust channels opened before it: the open tab waits for a reload.
    await expect.poll(notesState, { timeout: 10_000 }).toBe('unavailable')
    expect(await whoami()).toMatch(/^\[tab_unavailable\].*reload its tab/)
    await browser.waitForAdapter('notes')
    await tab.reload()
    await expect.poll(notesState, { timeout: 10_000 }).toBe('ready')
    expect(JSON.parse(await whoami())).toEqual({ user: 'gina' })
  })

  it('follows a secret rotation: new auth.json, POST /reload with the old secret, reconnection with the new one', async () => {
    const oldSecret = daemon.secret
    const newSecret = randomBytes(32).toString('hex')
    const connectedBefore = daemon.output().match(/extension connected/g)?.length ?? 0
    writeFileSync(join(configDir, 'extension', 'auth.json'), JSON.stringify({ secret: newSecret }), {
      mode: 0o600,
    })
    const reload = await daemon.fetch('/reload', {
      method: 'POST',
      headers: { authorization: `Bearer ${oldSecret}` },
    })
    expect(reload.status).toBe(200)
    expect(
      (await daemon.fetch('/health', { headers: { authorization: `Bearer ${oldSecret}` } })).status,
    ).toBe(200)
    expect(await health(oldSecret)).toEqual({ status: 'ok' })
    // The extension notices the new auth.json, drops the old connection and connects again with the new secret.
    await expect
      .poll(() => daemon.output().match(/extension connected/g)?.length ?? 0, { timeout: 20_000 })
      .toBe(connectedBefore + 1)
    await expect
      .poll(async () => (await health(newSecret)).extensionConnected, { timeout: 20_000 })
      .toBe(true)
    await expect.poll(() => notesState(newSecret), { timeout: 10_000 }).toBe('ready')
    expect(JSON.parse(await whoami(newSecret))).toEqual({ user: 'gina' })
  })
})
