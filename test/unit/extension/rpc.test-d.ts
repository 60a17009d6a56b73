import { expectTypeOf, test } from 'vitest'
import type { RpcPeer } from '../../../extension/background/rpc'
import type { ClientNotificationName, ConfigState } from '../../../src/protocol'

declare const peer: RpcPeer

test('the extension sends only the requests src/protocol gives it, with their params, and gets their results', async () => {
  expectTypeOf(peer.request('config.getState', {})).toEqualTypeOf<Promise<ConfigState>>()
  expectTypeOf(await peer.request('folder.open', { path: '/x' })).toEqualTypeOf<{ ok: boolean }>()
  // @ts-expect-error tool.dispatch is the daemon's request to the extension, not the other way
  void peer.request('tool.dispatch', { dispatchId: 'd', plugin: 'p', tool: 't', input: {} })
  // @ts-expect-error no such method
  void peer.request('config.getStat', {})
  // @ts-expect-error folder.open takes { path }
  void peer.request('folder.open', { dir: '/x' })
  // @ts-expect-error config.setPluginPermission's permission is off, ask or auto
  void peer.request('config.setPluginPermission', { plugin: 'notes', permission: 'sometimes' })
  const state = await peer.request('config.getState', {})
  // @ts-expect-error a ConfigState has no `ok`
  void state.ok
  // @ts-expect-error folder.open answers { ok }, not a string
  const text: string = await peer.request('folder.open', { path: '/x' })
  void text
})

test('the extension sends only its own notifications, with their params', () => {
  peer.notify('ping', { ts: 1 })
  // @ts-expect-error ping carries a number
  peer.notify('ping', { ts: 'now' })
  // @ts-expect-error sync.full is the daemon's notification
  peer.notify('sync.full', {})
  expectTypeOf<Parameters<RpcPeer['notify']>[0]>().toEqualTypeOf<ClientNotificationName>()
})
