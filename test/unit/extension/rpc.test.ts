import { describe, expect, it } from 'vitest'
import { RpcError, RpcPeer } from '../../../extension/background/rpc'
import { PROTOCOL_VERSION } from '../../../src/protocol/constants'

function peer(
  onRequest: (method: string, params: unknown) => Promise<unknown> = () => Promise.resolve({ ok: true }),
) {
  const sent: Array<Record<string, unknown>> = []
  const notifications: Array<[string, unknown]> = []
  const problems: string[] = []
  const p = new RpcPeer((text) => sent.push(JSON.parse(text) as Record<string, unknown>), {
    onNotification: (method, params) => notifications.push([method, params]),
    onRequest,
    onProblem: (m) => problems.push(m),
  })
  return { p, sent, notifications, problems }
}
const flush = () => new Promise((r) => setTimeout(r, 0))

describe('the extension end of the JSON-RPC link', () => {
  it('answers garbage with parse and invalid-request errors, and refuses batches like the daemon', () => {
    const { p, sent } = peer()
    p.receive('{not json')
    p.receive(JSON.stringify({ jsonrpc: '1.0', id: 4, method: 'x' }))
    p.receive(JSON.stringify([{ jsonrpc: '2.0', method: 'ping', params: { ts: 1 } }]))
    expect(sent).toEqual([
      {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32700, message: 'Parse error: the frame is not valid JSON' },
      },
      {
        jsonrpc: '2.0',
        id: 4,
        error: { code: -32600, message: 'Invalid Request: expected a JSON-RPC 2.0 object' },
      },
      {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'Invalid Request: batches are not supported' },
      },
    ])
  })

  it('answers unknown methods with -32601 and bad params with -32602, without running the handler', async () => {
    let ran = 0
    const { p, sent } = peer(() => (ran++, Promise.resolve({})))
    p.receive(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tool.teleport', params: {} }))
    p.receive(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tool.dispatch', params: { plugin: 'a' } }))
    await flush()
    expect(sent.map((m) => (m.error as { code: number }).code)).toEqual([-32601, -32602])
    expect(ran).toBe(0)
  })

  it('passes valid notifications on and drops invalid or unknown ones as problems', () => {
    const { p, notifications, problems } = peer()
    const sync = {
      protocolVersion: PROTOCOL_VERSION,
      serverVersion: '1',
      skipPermissions: false,
      plugins: [],
      browserTools: [],
    }
    p.receive(JSON.stringify({ jsonrpc: '2.0', method: 'sync.full', params: sync }))
    p.receive(JSON.stringify({ jsonrpc: '2.0', method: 'sync.full', params: { protocolVersion: 'one' } }))
    p.receive(JSON.stringify({ jsonrpc: '2.0', method: 'mystery', params: {} }))
    expect(notifications).toEqual([['sync.full', sync]])
    expect(problems).toEqual([
      'invalid sync.full: serverVersion Expected required property',
      'unknown notification mystery',
    ])
  })

  it('sends the handler’s result, or its RpcError with code and data', async () => {
    const { p, sent } = peer((method) =>
      method === 'plugin.uninstall'
        ? Promise.resolve({ ok: true })
        : Promise.reject(new RpcError(-32003, 'tool failed', { code: 'x' })),
    )
    p.receive(JSON.stringify({ jsonrpc: '2.0', id: 'a', method: 'plugin.uninstall', params: { name: 'n' } }))
    p.receive(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 'b',
        method: 'tool.dispatch',
        params: { dispatchId: 'd', plugin: 'p', tool: 't', input: {} },
      }),
    )
    await flush()
    expect(sent).toEqual([
      { jsonrpc: '2.0', id: 'a', result: { ok: true } },
      { jsonrpc: '2.0', id: 'b', error: { code: -32003, message: 'tool failed', data: { code: 'x' } } },
    ])
  })

  it('resolves its own requests with checked results and rejects on errors, bad results and close', async () => {
    const { p, sent } = peer()
    const good = p.request('config.setPluginPermission', { plugin: 'p', permission: 'ask' })
    const bad = p.request('config.setPluginPermission', { plugin: 'p', permission: 'ask' })
    const refused = p.request('folder.open', { path: '/x' })
    const pending = p.request('tab.stateChanged', { plugin: 'p', state: 'closed', tabs: [] })
    const [g, b, r] = sent.map((m) => m.id)
    p.receive(JSON.stringify({ jsonrpc: '2.0', id: g, result: { ok: true } }))
    p.receive(JSON.stringify({ jsonrpc: '2.0', id: b, result: { fine: 'yes' } }))
    p.receive(
      JSON.stringify({ jsonrpc: '2.0', id: r, error: { code: -32602, message: 'not a plugin folder' } }),
    )
    p.close()
    await expect(good).resolves.toEqual({ ok: true })
    await expect(bad).rejects.toThrow('invalid result for config.setPluginPermission')
    await expect(refused).rejects.toMatchObject({ code: -32602, message: 'not a plugin folder' })
    await expect(pending).rejects.toThrow('connection closed')
    await expect(p.request('config.getState', {})).rejects.toThrow('not connected')
  })
})
