// `GET /proof` needs no credential, so anyone can ask it. Attack: spend its budget so that the CLI and
// the extension can no longer tell the real daemon from an impostor. First a hostile web page in
// Chromium fires hundreds of `<img src=http://127.0.0.1:<port>/proof?...>`; then a rogue local process
// floods it, as a plain client and with the extension's Origin forged. While each flood runs, the real
// CLI (`bridge status`, `bridge config rotate-secret`, which both prove the daemon first) and the real
// extension (which proves it again before it reconnects with the rotated secret) must still work.
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { readFileSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { EXTENSION_ORIGIN } from '../../src/protocol/constants'
import { launchBrowser, type BrowserHarness } from '../helpers/browser'
import { startDaemon, tempConfigDir, type RunningDaemon } from '../helpers/daemon'
import { runCli } from '../integration/cli/runCli'

/** A page that keeps firing image requests at the daemon's /proof, with fresh well-formed nonces. */
function floodPage(port: number): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>cats</title><script>
  const hex = () => Array.from(crypto.getRandomValues(new Uint8Array(32)), (b) => b.toString(16).padStart(2, '0')).join('')
  let fired = 0
  const fire = () => {
    for (let i = 0; i < 20; i++) {
      const img = new Image()
      img.src = 'http://127.0.0.1:${port}/proof?nonce=' + hex()
      fired++
    }
    document.title = 'fired ' + fired
  }
  fire()
  setInterval(fire, 200)
</script></head><body>cute cats</body></html>`
}

/** Another program on this machine: loops of requests to /proof, half of them claiming the extension's Origin. */
function startRogueFlood(port: number): { proc: ChildProcess; answers(): Record<string, number> } {
  const proc = spawn(
    process.execPath,
    [
      '-e',
      `const [port, origin] = process.argv.slice(1)
       const { randomBytes } = require('node:crypto')
       const seen = {}
       const loop = async (forge) => {
         for (;;) {
           const res = await fetch('http://127.0.0.1:' + port + '/proof?nonce=' + randomBytes(32).toString('hex'), forge ? { headers: { origin } } : {}).catch(() => null)
           if (res) { await res.arrayBuffer(); seen[res.status] = (seen[res.status] ?? 0) + 1 }
         }
       }
       for (let i = 0; i < 2; i++) { void loop(false); void loop(true) }
       setInterval(() => process.stdout.write(JSON.stringify(seen) + '\\n'), 200)`,
      String(port),
      EXTENSION_ORIGIN,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  )
  let last: Record<string, number> = {}
  let buffered = ''
  proc.stdout?.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8')
    const lines = buffered.split('\n')
    buffered = lines.pop() ?? ''
    const latest = lines.at(-1)
    if (latest) last = JSON.parse(latest) as Record<string, number>
  })
  return { proc, answers: () => last }
}

describe('the proof endpoint under a flood', () => {
  let configDir: string
  let daemon: RunningDaemon
  let browser: BrowserHarness
  let panel: Page
  let site: Server
  let siteUrl: string

  beforeAll(async () => {
    configDir = tempConfigDir()
    daemon = await startDaemon({ via: 'cli', configDir })
    browser = await launchBrowser({ extensionDir: join(configDir, 'extension') })
    panel = await browser.openSidePanel()
    await panel
      .locator('[data-testid="connection-status"][data-state="connected"]')
      .waitFor({ timeout: 20_000 })
    site = createServer((_req, res) => {
      res.setHeader('content-type', 'text/html; charset=utf-8')
      res.end(floodPage(daemon.port))
    })
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve))
    siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`
  }, 120_000)
  afterAll(async () => {
    await browser?.close()
    await daemon?.stop()
    await new Promise<void>((resolve) => (site ? site.close(() => resolve()) : resolve()))
    if (configDir) rmSync(configDir, { recursive: true, force: true })
  })

  const currentSecret = () =>
    (JSON.parse(readFileSync(join(configDir, 'extension', 'auth.json'), 'utf8')) as { secret: string }).secret
  const health = async () =>
    (await (
      await fetch(`${daemon.url}/health`, { headers: { authorization: `Bearer ${currentSecret()}` } })
    ).json()) as { version?: string; extensionConnected?: boolean }
  const connects = () => daemon.output().split('extension connected').length - 1
  const cli = (args: string[]) => runCli([...args, '--port', String(daemon.port)], configDir, {}, 30_000)

  /** bridge status and rotate-secret work, and the extension reconnects with the new secret. */
  async function everythingStillWorks(): Promise<void> {
    const status = await cli(['status'])
    expect(status.stderr).not.toMatch(/something else is listening|impostor/i)
    expect(status.code).toBe(0)
    expect(status.stdout).toContain(`running on http://127.0.0.1:${daemon.port}`)
    const before = currentSecret()
    const connectsBefore = connects()
    const rotated = await cli(['config', 'rotate-secret', '--confirm'])
    expect(rotated.stderr).not.toMatch(/something else is listening|impostor/i)
    expect(rotated.code).toBe(0)
    expect(currentSecret()).not.toBe(before)
    // The daemon closed the extension's socket: it reconnects only after a new proof.
    await expect.poll(connects, { timeout: 60_000, interval: 500 }).toBeGreaterThan(connectsBefore)
    await expect
      .poll(async () => (await health()).extensionConnected, { timeout: 30_000, interval: 500 })
      .toBe(true)
    expect(await panel.getByTestId('connection-status').getAttribute('data-state')).toBe('connected')
  }

  it('refuses a hostile page’s image requests before they count, so the CLI and the extension still prove the daemon', async () => {
    // Not waiting for the page's load event: it waits on the hundreds of requests the page fires (30 s and
    // more on a loaded machine); the page's title counts them.
    const tab = await browser.newPage()
    await tab.goto(siteUrl, { waitUntil: 'commit', timeout: 60_000 })
    try {
      await expect
        .poll(async () => Number((await tab.title()).replace('fired ', '')) || 0, { timeout: 60_000 })
        .toBeGreaterThan(300)
      // A local process without the secret still has its own budget: the page spent nothing.
      const plain = await fetch(`${daemon.url}/proof?nonce=${randomBytes(32).toString('hex')}`)
      expect(plain.status).toBe(200)
      await everythingStillWorks()
    } finally {
      await tab.close()
    }
  }, 180_000)

  it('keeps a rogue local process that floods /proof (with and without the extension’s Origin) from locking out the CLI and the extension', async () => {
    const rogue = startRogueFlood(daemon.port)
    try {
      // The flood is real: its budget is spent and it gets 429s (never a reason to call us impostors).
      await expect.poll(() => rogue.answers()['429'] ?? 0, { timeout: 60_000 }).toBeGreaterThan(200)
      await everythingStillWorks()
      expect(rogue.answers()['429']).toBeGreaterThan(200)
    } finally {
      rogue.proc.kill('SIGKILL')
    }
  }, 180_000)

  it('has the CLI call a 429 busy, never an impostor, when the daemon itself is rate-limiting it', async () => {
    // A server that answers every proof request with 429, as an old daemon under a flood did.
    const busy = createServer((_req, res) => {
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '60' })
      res.end('{"error":{"code":"rate_limited","message":"too many requests; try again in a minute"}}')
    })
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve))
    try {
      const port = (busy.address() as AddressInfo).port
      const status = await runCli(['status', '--port', String(port)], configDir)
      expect(status.code).toBe(1)
      expect(status.stderr).toContain(`the server on 127.0.0.1:${port} is busy`)
      expect(status.stderr).toContain('Try again in a minute')
      expect(status.stderr).not.toMatch(/something else is listening|does not know/)
    } finally {
      busy.close()
    }
  })
})
