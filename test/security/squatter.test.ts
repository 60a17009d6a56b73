/**
 * Attack: while the daemon is down, another local program (no access to the config directory) binds
 * its port and waits for the secret. It answers like a bridge daemon would (`/health` says ok, every
 * path answers, `/proof` returns a plausible but wrong HMAC) and records every request line, header
 * and body it receives, WebSocket upgrades included. Then the user runs the CLI commands that talk to
 * the daemon, and the real extension in Chromium keeps trying to connect. The secret must appear in
 * nothing the squatter recorded, and the user must be told that something else is on the port.
 */
import { randomBytes } from 'node:crypto'
import { spawn } from 'node:child_process'
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchBrowser, type BrowserHarness } from '../helpers/browser'
import { ROOT, daemonEnv, tempConfigDir } from '../helpers/daemon'
import { copyFixture, tempDir } from '../fixtures/plugins'
import { runCli } from '../integration/cli/runCli'

interface Recorded {
  kind: 'request' | 'upgrade'
  method: string
  url: string
  rawHeaders: string[]
  body: string
}

async function startSquatter(): Promise<{ port: number; seen: Recorded[]; close(): Promise<void> }> {
  const seen: Recorded[] = []
  const sockets = new Set<Socket>()
  const server: Server = createServer((req, res) => {
    let body = ''
    req.on('data', (chunk: Buffer) => (body += chunk.toString('latin1')))
    req.on('end', () => {
      seen.push({
        kind: 'request',
        method: req.method ?? '',
        url: req.url ?? '',
        rawHeaders: req.rawHeaders,
        body,
      })
      const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname
      const answer =
        path === '/proof'
          ? { proof: randomBytes(32).toString('hex') }
          : path === '/health'
            ? { status: 'ok', version: '9.9.9', mode: 'production' }
            : { ok: true }
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify(answer))
    })
  })
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  server.on('upgrade', (req, socket) => {
    seen.push({
      kind: 'upgrade',
      method: req.method ?? '',
      url: req.url ?? '',
      rawHeaders: req.rawHeaders,
      body: '',
    })
    socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    port: (server.address() as AddressInfo).port,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      }),
  }
}

const everything = (seen: Recorded[]) =>
  seen.map((r) => [r.method, r.url, ...r.rawHeaders, r.body].join('\n')).join('\n---\n')

describe('a program squatting on the daemon port', () => {
  const secret = randomBytes(32).toString('hex')
  let squatter: Awaited<ReturnType<typeof startSquatter>>
  let configDir: string

  beforeAll(async () => {
    squatter = await startSquatter()
    configDir = tempConfigDir()
    mkdirSync(join(configDir, 'extension'), { recursive: true, mode: 0o700 })
    writeFileSync(join(configDir, 'extension/auth.json'), JSON.stringify({ secret }), { mode: 0o600 })
    writeFileSync(
      join(configDir, 'config.json'),
      JSON.stringify({ localPlugins: [], permissions: {}, port: squatter.port }),
      {
        mode: 0o600,
      },
    )
    writeFileSync(
      join(configDir, 'clients.json'),
      JSON.stringify({
        clients: [{ name: 'gone', token: 'c'.repeat(64), createdAt: '2026-01-01T00:00:00.000Z' }],
      }),
      { mode: 0o600 },
    )
  })
  afterAll(async () => {
    await squatter?.close()
    rmSync(configDir, { recursive: true, force: true })
  })

  const cli = (args: string[]) => runCli(args, configDir, { BRIDGE_PORT: String(squatter.port) })
  /** The secret and, after rotate-secret, the one that replaced it. */
  const secrets = () => [
    secret,
    (JSON.parse(readFileSync(join(configDir, 'extension/auth.json'), 'utf8')) as { secret: string }).secret,
  ]
  const leaked = () => secrets().filter((s) => everything(squatter.seen).includes(s))

  it('receives no secret from bridge status, audit and stop, which refuse with a clear message', async () => {
    const message = (port: number) =>
      `something else is listening on 127.0.0.1:${port}: it does not know bridge's secret, so nothing was sent to it`
    for (const args of [['status'], ['status', '--json'], ['audit'], ['stop']]) {
      const result = await cli(args)
      expect({ args, code: result.code }).toEqual({ args, code: 1 })
      expect(result.stderr).toContain(message(squatter.port))
    }
    // It was asked for a proof (a random nonce), and nothing else.
    expect(squatter.seen.some((r) => r.url.startsWith('/proof?nonce='))).toBe(true)
    expect(squatter.seen.filter((r) => !r.url.startsWith('/proof?'))).toEqual([])
    expect(leaked()).toEqual([])
  })

  it('receives no secret from doctor, plugin list, config set, client remove and rotate-secret', async () => {
    await cli(['doctor'])
    await cli(['plugin', 'list'])
    await cli(['config', 'set', 'plugin-permission.notes', 'ask'])
    await cli(['client', 'remove', 'gone', '--confirm'])
    const rotated = await cli(['config', 'rotate-secret', '--confirm'])
    expect(rotated.code).toBe(0)
    expect(squatter.seen.filter((r) => !r.url.startsWith('/proof?'))).toEqual([])
    expect(secrets()[1]).not.toBe(secret)
    expect(leaked()).toEqual([])
    expect(everything(squatter.seen)).not.toMatch(/authorization/i)
  })

  it('receives no secret from bridge-plugin build, which says why it did not ask for a reload', async () => {
    const tmp = tempDir('squat')
    try {
      const dir = copyFixture('good', join(tmp.dir, 'good'))
      const before = squatter.seen.length
      const result = await new Promise<{ code: number | null; out: string }>((resolve) => {
        const proc = spawn(process.execPath, [join(ROOT, 'dist/cli/bridgePlugin.js'), 'build'], {
          cwd: dir,
          env: daemonEnv(configDir, 'node', { PORT: undefined, BRIDGE_PORT: String(squatter.port) }),
          stdio: ['ignore', 'pipe', 'pipe'],
        })
        let out = ''
        proc.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')))
        proc.stderr.on('data', (c: Buffer) => (out += c.toString('utf8')))
        proc.once('exit', (code) => resolve({ code, out }))
      })
      expect(result.code).toBe(1)
      expect(result.out).toContain(`something else is listening on 127.0.0.1:${squatter.port}`)
      expect(squatter.seen.length).toBeGreaterThan(before)
      expect(squatter.seen.filter((r) => !r.url.startsWith('/proof?'))).toEqual([])
      expect(leaked()).toEqual([])
    } finally {
      tmp.cleanup()
    }
  }, 90_000)

  describe('and the real extension in Chromium pointed at it', () => {
    let browser: BrowserHarness
    let before = 0
    const extensionSecret = randomBytes(32).toString('hex')
    beforeAll(async () => {
      before = squatter.seen.length
      browser = await launchBrowser({ port: squatter.port, secret: extensionSecret })
    })
    afterAll(async () => {
      await browser?.close()
    })

    it('asks for proofs with its backoff, never sends the secret, and says another program is on the port', async () => {
      const proofs = () => squatter.seen.slice(before).filter((r) => r.url.startsWith('/proof?nonce=')).length
      await expect.poll(proofs, { timeout: 20_000 }).toBeGreaterThanOrEqual(2)
      const panel = await browser.openSidePanel()
      const status = panel.getByTestId('connection-status')
      await expect.poll(() => status.getAttribute('data-state'), { timeout: 10_000 }).toBe('impostor')
      expect(await panel.getByTestId('connection-message').textContent()).toContain(
        `The server on 127.0.0.1:${squatter.port} does not hold this extension’s secret`,
      )
      expect(squatter.seen.filter((r) => r.kind === 'upgrade')).toEqual([])
      expect(everything(squatter.seen)).not.toContain(extensionSecret)

      // The side panel's audit list asks the service worker, which would fetch GET /audit with the secret.
      const reply = await panel.evaluate(() =>
        chrome.runtime.sendMessage({ panel: { type: 'getAudit', limit: 5 } }),
      )
      expect(reply).toEqual({
        ok: false,
        message: `The server on 127.0.0.1:${squatter.port} does not hold this extension’s secret, so the audit log was not requested from it.`,
      })
      expect(squatter.seen.filter((r) => r.url.startsWith('/audit'))).toEqual([])
      expect(everything(squatter.seen)).not.toContain(extensionSecret)
    })
  })
})
