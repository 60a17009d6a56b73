/**
 * The 5-a-minute session creation limit counts per client: an agent that opens sessions in a loop is
 * refused (429, logged once with its name) while the user's other agents open theirs, and its own
 * stateless (2026-07-28) requests, which open no session, are still served.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startDaemon, type RunningDaemon } from '../../helpers/daemon'
import { STATELESS_REVISION } from '../../helpers/mcpClientV2'
import { runCli } from '../cli/runCli'

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }

describe('session creation limits per client', () => {
  let daemon: RunningDaemon
  const tokens: Record<string, string> = {}

  beforeAll(async () => {
    daemon = await startDaemon()
    for (const name of ['looping-agent', 'other-agent', 'tidy-agent', 'leaving-agent']) {
      const added = await runCli(
        ['client', 'add', name, '--json', '--port', String(daemon.port)],
        daemon.configDir,
      )
      tokens[name] = (JSON.parse(added.stdout) as { token: string }).token
    }
  })
  afterAll(async () => {
    await daemon?.stop()
  })

  const initialize = (client: string) =>
    fetch(`${daemon.url}/mcp`, {
      method: 'POST',
      headers: { ...HEADERS, authorization: `Bearer ${tokens[client]}` },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: client, version: '1' },
        },
      }),
    })

  it('refuses the sixth session of one client in a minute, logs it once by name, and lets the others in', async () => {
    const statuses: number[] = []
    for (let i = 0; i < 8; i++) {
      const res = await initialize('looping-agent')
      statuses.push(res.status)
      await res.body?.cancel()
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429, 429])
    const refused = await initialize('looping-agent')
    const seconds = Number(refused.headers.get('retry-after'))
    expect(seconds).toBeGreaterThan(0)
    expect(seconds).toBeLessThanOrEqual(60)
    const body = (await refused.json()) as { error: { code: string; message: string } }
    expect(body.error.code).toBe('rate_limited')
    expect(body.error.message).toMatch(
      /^MCP client "looping-agent" opened 5 sessions in the last minute, its limit \(sessions it closed with DELETE do not count\): the next one frees in \d+ s$/,
    )
    const other = await initialize('other-agent')
    expect(other.status).toBe(200)
    await other.body?.cancel()
    await daemon.waitForOutput(/MCP client "looping-agent" opens sessions faster than 5 a minute/)
    const lines = daemon
      .output()
      .split('\n')
      .filter((line) => line.includes('opens sessions faster'))
    expect(lines).toHaveLength(1)

    const stateless = await fetch(`${daemon.url}/mcp`, {
      method: 'POST',
      headers: {
        ...HEADERS,
        authorization: `Bearer ${tokens['looping-agent']}`,
        'mcp-protocol-version': STATELESS_REVISION,
        'mcp-method': 'tools/list',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/list',
        params: {
          _meta: {
            'io.modelcontextprotocol/protocolVersion': STATELESS_REVISION,
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    })
    expect(stateless.status).toBe(200)
    expect(await stateless.json()).toMatchObject({ id: 2, result: { tools: [], resultType: 'complete' } })
  })

  const sessionOf = async (client: string) => {
    const res = await initialize(client)
    expect(res.status).toBe(200)
    await res.body?.cancel()
    return res.headers.get('mcp-session-id')!
  }
  const sessionRequest = (client: string, session: string, method: 'DELETE' | 'GET') =>
    fetch(`${daemon.url}/mcp`, {
      method,
      headers: { ...HEADERS, authorization: `Bearer ${tokens[client]}`, 'mcp-session-id': session },
    })

  it('does not count the sessions a client closed with DELETE: one session per command keeps working', async () => {
    for (let i = 0; i < 9; i++) {
      const session = await sessionOf('tidy-agent')
      const closed = await sessionRequest('tidy-agent', session, 'DELETE')
      expect(closed.status).toBe(200)
    }
  })

  it('replaces a session whose client left (its event stream closed, nothing running), and no other', async () => {
    const kept = await sessionOf('leaving-agent')
    for (let i = 0; i < 4; i++) {
      const abort = new AbortController()
      const stream = await fetch(`${daemon.url}/mcp`, {
        method: 'GET',
        signal: abort.signal,
        headers: {
          ...HEADERS,
          authorization: `Bearer ${tokens['leaving-agent']}`,
          'mcp-session-id': await sessionOf('leaving-agent'),
        },
      })
      expect(stream.status).toBe(200)
      abort.abort()
      await stream.body?.cancel().catch(() => undefined)
    }
    const left = () =>
      daemon
        .output()
        .split('\n')
        .filter((line) => line.includes('"leaving-agent" closed its session')).length
    await expect.poll(left, { timeout: 30_000 }).toBe(4)
    // Five opened; the four that left are replaced one by one, then the limit holds.
    const statuses: number[] = []
    for (let i = 0; i < 6; i++) {
      const res = await initialize('leaving-agent')
      statuses.push(res.status)
      await res.body?.cancel()
    }
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429])
    const stillOpen = await fetch(`${daemon.url}/mcp`, {
      method: 'POST',
      headers: { ...HEADERS, authorization: `Bearer ${tokens['leaving-agent']}`, 'mcp-session-id': kept },
      body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'ping' }),
    })
    expect(stillOpen.status).toBe(200)
  })
})
