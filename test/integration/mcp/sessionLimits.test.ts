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
    for (const name of ['looping-agent', 'other-agent']) {
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
})
