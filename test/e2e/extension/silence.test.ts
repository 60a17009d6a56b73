import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchBrowser, type BrowserHarness } from '../../helpers/browser'
import { startTinyDaemon, type TinyDaemon } from './tinyDaemon'

// A socket can stay open while nothing answers on it (a suspended laptop, a hung daemon). The
// extension pings every 20 s; after 45 s without a word it gives the socket up and connects again.
// Real time on purpose: it is the service worker's own clock. About a minute, in its own file so it
// runs beside the other browser tests.
describe('extension connection to a daemon that stops answering', () => {
  const secret = randomBytes(32).toString('hex')
  let daemon: TinyDaemon
  let browser: BrowserHarness

  beforeAll(async () => {
    daemon = await startTinyDaemon({ secret })
    browser = await launchBrowser({ port: daemon.port, secret })
  })
  afterAll(async () => {
    await browser?.close()
    await daemon?.close()
  })

  it('closes a silent socket with 4001 after 45 s and reconnects', { timeout: 120_000 }, async () => {
    await expect.poll(() => daemon.isConnected(), { timeout: 15_000 }).toBe(true)
    // Mute right after a ping has been answered, so the silence starts now.
    await daemon.waitFor((f) => f.method === 'ping', 25_000, daemon.frames.length)
    const before = daemon.connections()
    daemon.mute()
    const mutedAt = Date.now()
    await expect.poll(() => daemon.connections(), { timeout: 100_000, interval: 500 }).toBe(before + 1)
    expect(daemon.closeCodes).toContain(4001)
    // Not before the 45 s limit (the check runs with each 20 s ping, so it comes within about 65 s).
    expect(Date.now() - mutedAt).toBeGreaterThanOrEqual(44_000)
    // The new socket is a working one: it answers sync.full and keeps pinging.
    const since = daemon.frames.length
    daemon.resync()
    await daemon.waitFor((f) => f.method === 'tab.syncAll', 10_000, since)
  })
})
