import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchBrowser, type BrowserHarness } from '../../helpers/browser'
import { BROWSER_START_TIMEOUT_MS, scaled } from '../../helpers/timing'
import { startTinyDaemon, type TinyDaemon } from './tinyDaemon'

// A socket can stay open while nothing answers on it (a suspended laptop, a hung daemon). The
// extension pings every 20 s; after 45 s without a word it gives the socket up and connects again
// (those values: test/unit/extension/connectionTiming.test.ts). Here the worker runs with a shorter
// clock of the same shape (a ping, then the limit of two and a half pings): real time, the service
// worker's own timers, so a loaded machine only makes the close later, never earlier.
const PING_MS = scaled(2_000)
const SILENCE_MS = scaled(5_000)

describe('extension connection to a daemon that stops answering', () => {
  const secret = randomBytes(32).toString('hex')
  let daemon: TinyDaemon
  let browser: BrowserHarness

  beforeAll(async () => {
    daemon = await startTinyDaemon({ secret })
    browser = await launchBrowser({
      port: daemon.port,
      secret,
      connectionTiming: { pingIntervalMs: PING_MS, silenceLimitMs: SILENCE_MS },
    })
  }, BROWSER_START_TIMEOUT_MS)
  afterAll(async () => {
    await browser?.close()
    await daemon?.close()
  })

  it(
    'closes a silent socket with 4001 after the silence limit and reconnects',
    async () => {
      await expect.poll(() => daemon.isConnected(), { timeout: 15_000 }).toBe(true)
      // Mute right after a ping has been answered, so the silence starts now.
      await daemon.waitFor((f) => f.method === 'ping', scaled(15_000), daemon.frames.length)
      const before = daemon.connections()
      daemon.mute()
      const mutedAt = Date.now()
      await expect
        .poll(() => daemon.connections(), { timeout: scaled(20_000) + 10 * SILENCE_MS, interval: 100 })
        .toBe(before + 1)
      expect(daemon.closeCodes).toContain(4001)
      // Not before the limit (the check runs with each ping, so it comes within the limit plus a ping).
      expect(Date.now() - mutedAt).toBeGreaterThanOrEqual(SILENCE_MS - 1_000)
      // The new socket is a working one: it answers sync.full and keeps pinging.
      const since = daemon.frames.length
      daemon.resync()
      await daemon.waitFor((f) => f.method === 'tab.syncAll', 10_000, since)
      await daemon.waitFor((f) => f.method === 'ping', scaled(15_000), since)
    },
    scaled(120_000),
  )
})
