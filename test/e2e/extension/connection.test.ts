import { randomBytes } from 'node:crypto'
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { EXTENSION_ID, PROTOCOL_VERSION } from '../../../src/protocol/constants'
import { launchBrowser, type BrowserHarness } from '../../helpers/browser'
import { EXTENSION_VERSION } from '../../helpers/extensionVersion'
import { scaled } from '../../helpers/timing'
import { startTinyDaemon, type TinyDaemon } from './tinyDaemon'

// The extension's connection to the daemon, against a scripted daemon on loopback: the header it
// offers, the sync handshake, backoff and reconnection, and what the side panel tells the user.
const PING_MS = scaled(2_000)

describe('extension connection', () => {
  const secret = randomBytes(32).toString('hex')
  let daemon: TinyDaemon
  let browser: BrowserHarness
  let panel: Page

  beforeAll(async () => {
    daemon = await startTinyDaemon({ secret })
    // A ping every 2 s instead of 20 s, so the keepalive test waits seconds (the shipped clock:
    // test/unit/extension/connectionTiming.test.ts); the silence limit stays the shipped 45 s.
    browser = await launchBrowser({
      port: daemon.port,
      secret,
      connectionTiming: { pingIntervalMs: PING_MS },
    })
    panel = await browser.openSidePanel()
  })
  afterAll(async () => {
    await browser?.close()
    await daemon?.close()
  })

  const status = () => panel.getByTestId('connection-status')

  it('runs its service worker under the fixed extension id, and the toolbar button opens the side panel', async () => {
    const worker = await browser.serviceWorker()
    expect(worker.url()).toBe(`chrome-extension://${EXTENSION_ID}/background.js`)
    await expect
      .poll(() => worker.evaluate('chrome.sidePanel.getPanelBehavior()'))
      .toEqual({ openPanelOnActionClick: true })
  })

  it('connects with the bridge subprotocol and the secret, then answers sync.full with tab.syncAll', async () => {
    const sync = await daemon.waitFor((f) => f.method === 'tab.syncAll')
    expect(sync.params).toEqual({ plugins: {}, extensionVersion: EXTENSION_VERSION })
    expect(daemon.offeredProtocols[0]).toEqual(['bridge', secret])
    await expect.poll(() => status().getAttribute('data-state')).toBe('connected')
    await expect.poll(() => status().textContent()).toBe('Connected')
    await expect.poll(() => panel.locator('footer').textContent()).toContain('daemon 9.9.9-test')
    // The scripted daemon is of a newer version than this extension: the panel says so, and the fix.
    expect(await panel.getByTestId('version-message').innerText()).toBe(
      `The daemon was updated to 9.9.9-test but this extension still runs ${EXTENSION_VERSION}: reload the extension so it runs 9.9.9-test.`,
    )
  })

  it('sends a keepalive ping at least every 20 s while connected', async () => {
    const since = daemon.frames.length
    const ping = await daemon.waitFor((f) => f.method === 'ping', 25_000, since)
    expect(typeof (ping.params as { ts: unknown }).ts).toBe('number')
    expect(daemon.isConnected()).toBe(true)
  })

  it('tells the user the daemon is not running, then reconnects when it is back', async () => {
    const before = daemon.connections()
    await daemon.stop()
    await expect.poll(() => status().getAttribute('data-state'), { timeout: 10_000 }).toBe('unreachable')
    const message = panel.getByTestId('connection-message')
    expect(await message.textContent()).toContain('start it with bridge start.')
    expect(await message.textContent()).not.toContain('`')
    expect(await message.locator('code').allTextContents()).toEqual(['bridge start'])
    await daemon.start()
    await expect.poll(() => daemon.connections(), { timeout: 20_000 }).toBe(before + 1)
    await expect.poll(() => status().getAttribute('data-state')).toBe('connected')
  })

  it('sends nothing to a server that cannot prove it knows the secret, says so, and picks up a corrected auth.json on its own', async () => {
    const other = randomBytes(32).toString('hex')
    daemon.setSecret(other)
    const offeredBefore = daemon.offeredProtocols.length
    const proofsBefore = daemon.proofs()
    daemon.drop()
    await expect.poll(() => status().getAttribute('data-state'), { timeout: 10_000 }).toBe('impostor')
    expect(await panel.getByTestId('connection-message').textContent()).toContain(
      `The server on 127.0.0.1:${daemon.port} does not hold this extension’s secret (a bridge daemon of another config folder, one whose secret changed, or another program), so nothing was sent to it: run bridge doctor, which says which and what to do.`,
    )
    // It asked for the proof and, unproven, never offered its secret in an upgrade.
    expect(daemon.proofs()).toBeGreaterThan(proofsBefore)
    expect(daemon.offeredProtocols.length).toBe(offeredBefore)
    writeFileSync(join(browser.extensionDir, 'auth.json'), JSON.stringify({ secret: other }))
    await expect.poll(() => status().getAttribute('data-state'), { timeout: 15_000 }).toBe('connected')
    expect(daemon.offeredProtocols.at(-1)).toEqual(['bridge', other])
  })

  it('reads a 429 from the proof as busy, never as an impostor, and keeps retrying until it connects', async () => {
    daemon.proofBusy = true
    const proofsBefore = daemon.proofs()
    const states: Array<string | null> = []
    daemon.drop()
    await expect
      .poll(
        async () => {
          states.push(await status().getAttribute('data-state'))
          return panel.getByTestId('connection-message').textContent()
        },
        { timeout: 10_000 },
      )
      .toContain(`The bridge daemon on 127.0.0.1:${daemon.port} is busy`)
    // It asks again on its own, more than once.
    await expect.poll(() => daemon.proofs(), { timeout: 15_000 }).toBeGreaterThan(proofsBefore + 1)
    daemon.proofBusy = false
    await expect.poll(() => status().getAttribute('data-state'), { timeout: 20_000 }).toBe('connected')
    expect(states).not.toContain('impostor')
  })

  it('says how to fix a missing auth.json, and connects once it is back', async () => {
    const authFile = join(browser.extensionDir, 'auth.json')
    const saved = readFileSync(authFile, 'utf8')
    rmSync(authFile)
    daemon.drop()
    await expect.poll(() => status().getAttribute('data-state'), { timeout: 10_000 }).toBe('misconfigured')
    expect(await panel.getByTestId('connection-message').textContent()).toContain(
      'This copy of the extension has no auth.json: in chrome://extensions, load the extension folder that bridge start prints in its place.',
    )
    writeFileSync(authFile, saved)
    await panel.getByTestId('reconnect').click()
    await expect.poll(() => status().getAttribute('data-state'), { timeout: 10_000 }).toBe('connected')
  })

  it('stops and explains when the daemon speaks another protocol version', async () => {
    daemon.protocolVersion = PROTOCOL_VERSION + 1
    daemon.drop()
    await expect.poll(() => status().getAttribute('data-state'), { timeout: 10_000 }).toBe('protocolMismatch')
    // After `bridge update` the daemon is newer: reloading the extension is the fix, and the banner offers it.
    expect(await panel.getByTestId('connection-message').textContent()).toBe(
      `The daemon was updated to 9.9.9-test (protocol ${PROTOCOL_VERSION + 1}) but this extension still runs ${EXTENSION_VERSION} (protocol ${PROTOCOL_VERSION}): reload the extension so it runs 9.9.9-test.`,
    )
    expect(await panel.getByTestId('reload-extension').count()).toBe(1)
    daemon.protocolVersion = PROTOCOL_VERSION
    await panel.getByTestId('reconnect').click()
    await expect.poll(() => status().getAttribute('data-state'), { timeout: 10_000 }).toBe('connected')
  })

  it('steps aside when another browser replaces its connection, until the user reconnects', async () => {
    const before = daemon.connections()
    daemon.drop(4000)
    await expect.poll(() => status().getAttribute('data-state'), { timeout: 10_000 }).toBe('replaced')
    expect(daemon.connections()).toBe(before)
    await panel.getByTestId('reconnect').click()
    await expect.poll(() => status().getAttribute('data-state'), { timeout: 10_000 }).toBe('connected')
    expect(daemon.connections()).toBe(before + 1)
  })
})
