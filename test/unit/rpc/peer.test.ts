import { describe, expect, it } from 'vitest'
import { BridgeError, BridgeErrorCode } from '../../../src/errors'
import { JsonRpcErrorCode } from '../../../src/protocol'
import { Peer, RpcError, SOON_MS } from '../../../src/rpc/peer'
import { DAEMON_PEER_POLICY } from '../../../src/ws/extensionSockets'

function setup(
  onRequest: (method: string, params: unknown) => Promise<unknown> = () => Promise.resolve({ ok: true }),
) {
  const sent: Record<string, unknown>[] = []
  const notes: [string, unknown][] = []
  const problems: string[] = []
  const peer = new Peer({
    ...DAEMON_PEER_POLICY,
    send: (text) => sent.push(JSON.parse(text) as Record<string, unknown>),
    onNotification: (method, params) => notes.push([method, params]),
    onRequest,
    onProblem: (m) => problems.push(m),
  })
  return { peer, sent, notes, problems }
}
const flush = () => new Promise((r) => setTimeout(r, 0))
const DISPATCH = { dispatchId: 'd', plugin: 'p', tool: 't', input: {} }

describe('Peer.notifySoon', () => {
  it('sends a notification with the next frame, in order, or on its own after SOON_MS', async () => {
    const { peer, sent } = setup()
    peer.notifySoon('tool.invocationEnd', { n: 1 })
    expect(sent).toEqual([])
    peer.notify('tool.invocationStart', { n: 2 })
    expect(sent.map((m) => m.method)).toEqual(['tool.invocationEnd', 'tool.invocationStart'])
    peer.notifySoon('tool.invocationEnd', { n: 3 })
    expect(sent).toHaveLength(2)
    await new Promise((r) => setTimeout(r, SOON_MS + 20))
    expect(sent.map((m) => m.params)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }])
  })

  it('drops what waits when the link closes, and refuses after', async () => {
    const { peer, sent } = setup()
    peer.notifySoon('tool.invocationEnd', { n: 1 })
    peer.close()
    expect(peer.notifySoon('tool.invocationEnd', { n: 2 })).toBe(false)
    await new Promise((r) => setTimeout(r, SOON_MS + 20))
    expect(sent).toEqual([])
  })
})

describe('Peer, as the daemon end of /ws', () => {
  it('answers malformed JSON with -32700 and a null id', () => {
    const { peer, sent } = setup()
    peer.receive('{"jsonrpc": "2.0", "method": ')
    expect(sent).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32700, message: expect.stringContaining('Parse error') } },
    ])
  })

  it('answers a bad envelope with -32600', () => {
    const { peer, sent } = setup()
    peer.receive('{"jsonrpc":"1.0","id":7,"method":"config.getState"}')
    peer.receive('[1,2]')
    peer.receive('42')
    peer.receive('{"jsonrpc":"2.0","id":8}')
    expect(sent.map((m) => [m.id, (m.error as { code: number }).code])).toEqual([
      [7, -32600],
      [null, -32600],
      [null, -32600],
      [8, -32600],
    ])
  })

  it('answers an id of the wrong type with -32600 and a null id', () => {
    const { peer, sent } = setup()
    peer.receive('{"jsonrpc":"2.0","id":{"x":1},"method":"config.getState"}')
    peer.receive('{"jsonrpc":"2.0","id":null,"method":"config.getState"}')
    expect(sent.map((m) => [m.id, (m.error as { code: number }).code])).toEqual([
      [null, -32600],
      [null, -32600],
    ])
  })

  it('answers an unknown method with -32601', () => {
    const { peer, sent } = setup()
    peer.receive('{"jsonrpc":"2.0","id":"a","method":"system.shutdown"}')
    expect(sent[0]).toMatchObject({
      id: 'a',
      error: { code: -32601, message: 'Method not found: system.shutdown' },
    })
  })

  it('answers bad params with -32602 and names the property', () => {
    const { peer, sent } = setup()
    peer.receive(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 3,
        method: 'config.setToolPermission',
        params: { plugin: 'notes', tool: 'x', permission: 'always' },
      }),
    )
    expect(sent[0]).toMatchObject({ id: 3, error: { code: -32602 } })
    expect((sent[0]!.error as { message: string }).message).toBe(
      'Invalid params: permission must be one of "off", "ask", "auto"',
    )
  })

  it('passes valid requests to the handler and returns its result', async () => {
    const { peer, sent } = setup((method, params) => Promise.resolve({ method, params }))
    peer.receive(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'config.setSkipPermissions',
        params: { enabled: true },
      }),
    )
    await flush()
    expect(sent[0]).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: { method: 'config.setSkipPermissions', params: { enabled: true } },
    })
  })

  it('keeps the code of an RpcError, passes a BridgeError on, and hides other handler failures', async () => {
    const failures = [
      new RpcError(-32010, 'no such plugin', { plugin: 'x' }),
      new Error('secret path /root/.bridge'),
      new BridgeError(BridgeErrorCode.configLocked, 'config.json.lock is held'),
    ]
    const { peer, sent } = setup(() => Promise.reject(failures.shift() ?? new Error('no more failures')))
    peer.receive('{"jsonrpc":"2.0","id":1,"method":"config.getState","params":{}}')
    peer.receive('{"jsonrpc":"2.0","id":2,"method":"config.getState"}')
    peer.receive('{"jsonrpc":"2.0","id":3,"method":"config.getState"}')
    await flush()
    expect(sent[0]).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32010, message: 'no such plugin', data: { plugin: 'x' } },
    })
    expect(sent[1]).toEqual({
      jsonrpc: '2.0',
      id: 2,
      error: { code: JsonRpcErrorCode.internalError, message: 'Internal error' },
    })
    expect(sent[2]).toEqual({
      jsonrpc: '2.0',
      id: 3,
      error: {
        code: JsonRpcErrorCode.internalError,
        message: 'config.json.lock is held',
        data: { code: 'config_locked' },
      },
    })
  })

  it('delivers valid notifications and drops invalid ones without answering', () => {
    const { peer, sent, notes, problems } = setup()
    peer.receive('{"jsonrpc":"2.0","method":"ping","params":{"ts":5}}')
    peer.receive('{"jsonrpc":"2.0","method":"ping","params":{"ts":"soon"}}')
    peer.receive('{"jsonrpc":"2.0","method":"nope"}')
    expect(notes).toEqual([['ping', { ts: 5 }]])
    expect(sent).toEqual([])
    expect(problems).toHaveLength(2)
  })

  it('resolves its own requests with validated results and drops late answers', async () => {
    const { peer, sent, problems } = setup()
    const call = peer.request('tool.dispatch', { dispatchId: 'd', plugin: 'p', tool: 't', input: {} })
    expect(sent[0]).toEqual({
      jsonrpc: '2.0',
      id: call.id,
      method: 'tool.dispatch',
      params: { dispatchId: 'd', plugin: 'p', tool: 't', input: {} },
    })
    peer.receive(JSON.stringify({ jsonrpc: '2.0', id: call.id, result: { output: { n: 1 } } }))
    await expect(call.result).resolves.toEqual({ output: { n: 1 } })
    peer.receive(JSON.stringify({ jsonrpc: '2.0', id: call.id, result: { output: 2 } }))
    expect(problems).toEqual(['answer to an unknown or expired request was dropped'])
  })

  it('accepts a dispatch result without output (a tool that returned nothing)', async () => {
    const { peer } = setup()
    const call = peer.request('tool.dispatch', DISPATCH)
    peer.receive(JSON.stringify({ jsonrpc: '2.0', id: call.id, result: {} }))
    await expect(call.result).resolves.toEqual({})
  })

  it('rejects with the remote error, and rejects a result of the wrong shape', async () => {
    const { peer } = setup()
    const a = peer.request('tool.dispatch', DISPATCH)
    const b = peer.request('tool.dispatch', DISPATCH)
    peer.receive(
      JSON.stringify({
        jsonrpc: '2.0',
        id: a.id,
        error: { code: -32001, message: 'no tab', data: { code: 'tab_closed' } },
      }),
    )
    peer.receive(JSON.stringify({ jsonrpc: '2.0', id: b.id, result: 'not an object' }))
    await expect(a.result).rejects.toMatchObject({
      code: -32001,
      message: 'no tab',
      data: { code: 'tab_closed' },
    })
    await expect(b.result).rejects.toMatchObject({ code: -32602 })
  })

  it('times out requests and rejects all pending ones on close', async () => {
    const { peer } = setup()
    const a = peer.request('plugin.uninstall', { name: 'x' }, { timeoutMs: 5 })
    const b = peer.request('plugin.uninstall', { name: 'y' })
    await expect(a.result).rejects.toThrow('plugin.uninstall timed out')
    peer.close('replaced')
    await expect(b.result).rejects.toThrow('replaced')
    expect(peer.pendingCount).toBe(0)
  })

  it('survives a send function that throws', () => {
    const peer = new Peer({
      ...DAEMON_PEER_POLICY,
      send: () => {
        throw new Error('socket gone')
      },
      onNotification: () => undefined,
      onRequest: () => Promise.resolve({}),
    })
    expect(() => peer.receive('garbage')).not.toThrow()
    expect(peer.notify('pong', { ts: 1 })).toBe(false)
  })
})
