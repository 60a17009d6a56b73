/**
 * Attack: an agent holds only what its MCP client was given (a client token from `bridge client add`)
 * and tries every other door of the daemon: the admin endpoints, the full health payload, and the
 * extension's own channel `/ws`, from which it could approve its own `ask` calls, switch permissions
 * off, or install a package. Each door must refuse it exactly as it refuses a wrong token, while `/mcp`
 * serves it to the real MCP SDK client.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { EXTENSION_ORIGIN } from '../../src/protocol/constants'
import { ENGINES } from '../helpers/daemon'
import { FakeExtension, READY } from '../helpers/fakeExtension'
import { connectMcp, textOf } from '../helpers/mcpClient'
import { runCli } from '../integration/cli/runCli'
import { startFixture, type Fixture } from '../integration/toolcall/fixture'

const WRONG = 'f'.repeat(64)

function tryUpgrade(
  port: number,
  protocols: string[],
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string } | { opened: true }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`, protocols, { headers })
    ws.on('unexpected-response', (_req, res) => {
      let body = ''
      res.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
    })
    ws.on('open', () => {
      resolve({ opened: true })
      ws.close()
    })
    ws.on('error', (error) => {
      if (!/Unexpected server response/.test(error.message)) reject(error)
    })
  })
}

describe.each(ENGINES)('a client token on the %s engine', (engine) => {
  let fx: Fixture
  let token: string
  const configBytes = () => readFileSync(join(fx.configDir, 'config.json'), 'utf8')

  beforeAll(async () => {
    fx = await startFixture(engine, {
      plugins: [{ name: 'notes', tools: [{ name: 'list_notes' }] }],
      permissions: { notes: { permission: 'ask' } },
    })
    const added = await runCli(
      ['client', 'add', 'agent', '--json', '--port', String(fx.daemon.port)],
      fx.configDir,
    )
    expect(added.code).toBe(0)
    token = (JSON.parse(added.stdout) as { token: string }).token
    expect(token).toMatch(/^[0-9a-f]{64}$/)
  })
  afterAll(async () => {
    await fx?.stop()
  })

  const withToken = (value: string) => ({ headers: { authorization: `Bearer ${value}` } })

  it('is refused on every endpoint but /mcp with the same 401 body as a wrong token', async () => {
    const doors: [string, RequestInit][] = [
      ['/ws-info', {}],
      ['/audit', {}],
      ['/reload', { method: 'POST' }],
      ['/extension/reload', { method: 'POST' }],
    ]
    for (const [path, init] of doors) {
      const asClient = await fx.daemon.fetch(path, { ...init, ...withToken(token) })
      const asStranger = await fx.daemon.fetch(path, { ...init, ...withToken(WRONG) })
      expect({ path, status: asClient.status }).toEqual({ path, status: 401 })
      expect(asClient.headers.get('www-authenticate')).toBe('Bearer')
      expect(await asClient.json()).toEqual(await asStranger.json())
    }
    // /health answers the bare status only, as to anyone without the secret.
    const health = await fx.daemon.fetch('/health', withToken(token))
    expect(health.status).toBe(200)
    expect(await health.json()).toEqual({ status: 'ok' })
  })

  it('cannot open /ws in any form, so cannot approve, change permissions or install', async () => {
    const before = configBytes()
    const attempts = [
      tryUpgrade(fx.daemon.port, ['bridge', token]),
      // A native process can forge the extension's Origin; the token still is not the secret.
      tryUpgrade(fx.daemon.port, ['bridge', token], { origin: EXTENSION_ORIGIN }),
      tryUpgrade(fx.daemon.port, ['bridge'], { origin: EXTENSION_ORIGIN, authorization: `Bearer ${token}` }),
    ]
    for (const result of await Promise.all(attempts)) {
      expect(result).toEqual({ status: 401, body: expect.stringContaining('"unauthorized"') })
    }
    expect(configBytes()).toBe(before)
  })

  it('opens /mcp for the real MCP SDK client, and an ask call still waits for the extension alone', async () => {
    const ext = await FakeExtension.connect(fx.daemon, { tabs: { notes: READY } })
    const mcp = await connectMcp({ url: fx.daemon.url, secret: token }, 'agent')
    try {
      const { tools } = await mcp.client.listTools()
      expect(tools.map((t) => t.name)).toContain('notes_list_notes')
      const call = mcp.client.callTool({ name: 'notes_list_notes', arguments: {} })
      const request = await ext.waitFor('confirmation.request')
      // The agent tries to answer its own approval over /ws: refused before any frame is read.
      const selfApproval = await tryUpgrade(fx.daemon.port, ['bridge', token], { origin: EXTENSION_ORIGIN })
      expect(selfApproval).toMatchObject({ status: 401 })
      ext.approve(String(request.params?.id), 'deny')
      expect(textOf(await call)).toMatch(/^\[approval_denied\]/)
    } finally {
      await mcp.close()
      await ext.close()
    }
  })

  it('the secret without the extension Origin does not open /ws either (403)', async () => {
    expect(await tryUpgrade(fx.daemon.port, ['bridge', fx.daemon.secret])).toEqual({
      status: 403,
      body: expect.stringContaining('"forbidden_origin"'),
    })
  })
})
