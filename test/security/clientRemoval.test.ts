/**
 * Attack: a client the user no longer trusts (a leaked config file, an agent gone wrong) keeps using
 * its token, including on an MCP session it opened before it was removed. `bridge client remove
 * --confirm` must end its access at once: its very next request is a 401, on an open session too.
 * Without --confirm nothing changes.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startDaemon, type RunningDaemon } from '../helpers/daemon'
import { connectMcp } from '../helpers/mcpClient'
import { runCli } from '../integration/cli/runCli'

describe('bridge client remove', () => {
  let daemon: RunningDaemon
  let token: string
  const cli = (args: string[]) => runCli([...args, '--port', String(daemon.port)], daemon.configDir)

  beforeAll(async () => {
    daemon = await startDaemon()
    const added = await cli(['client', 'add', 'leaky', '--json'])
    token = (JSON.parse(added.stdout) as { token: string }).token
  })
  afterAll(async () => {
    await daemon?.stop()
  })

  const listWith = (value: string) =>
    fetch(`${daemon.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${value}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
      }),
    })

  it('without --confirm warns, exits 1 and leaves the client working', async () => {
    const before = readFileSync(join(daemon.configDir, 'clients.json'), 'utf8')
    const result = await cli(['client', 'remove', 'leaky'])
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('Nothing was changed')
    expect(readFileSync(join(daemon.configDir, 'clients.json'), 'utf8')).toBe(before)
    const mcp = await connectMcp({ url: daemon.url, secret: token })
    expect((await mcp.client.listTools()).tools).toBeDefined()
    await mcp.close()
  })

  it('with --confirm ends the access at once, on an already open session too', async () => {
    const mcp = await connectMcp({ url: daemon.url, secret: token })
    await mcp.client.listTools()
    const result = await cli(['client', 'remove', 'leaky', '--confirm'])
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('removed MCP client "leaky"')
    expect(result.stdout).toContain('the running daemon no longer accepts its token')
    // The next request on the open session: 401.
    const error = await mcp.client.listTools().then(
      () => null,
      (e: unknown) => e,
    )
    expect(error).toMatchObject({ code: 401 })
    expect(String(error)).toContain('"unauthorized"')
    // A new session with the token: 401 with the usual body.
    const fresh = await listWith(token)
    expect(fresh.status).toBe(401)
    expect(await fresh.json()).toEqual({
      error: { code: 'unauthorized', message: 'a valid bearer token is required' },
    })
    const clients = JSON.parse(readFileSync(join(daemon.configDir, 'clients.json'), 'utf8')) as {
      clients: { name: string }[]
    }
    expect(clients.clients.map((c) => c.name)).toEqual(['default'])
    await mcp.close()
  })

  it('is refused for a client that does not exist', async () => {
    const result = await cli(['client', 'remove', 'nobody', '--confirm'])
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('no MCP client named "nobody"')
  })
})
