import { expectTypeOf, test } from 'vitest'
import type { ClientNotificationName, ServerRequestName } from '../../../src/protocol'
import type { DaemonPeer, DaemonPeerOptions, NoteHandlers } from '../../../src/ws/extensionSockets'

declare const peer: DaemonPeer

test('the daemon sends only the requests src/protocol gives it, and gets their results', () => {
  const sent = peer.request('plugin.uninstall', { name: 'notes' })
  expectTypeOf(sent.result).toEqualTypeOf<Promise<{ ok: boolean }>>()
  // @ts-expect-error config.getState is the extension's request to the daemon
  void peer.request('config.getState', {})
  // @ts-expect-error tool.sinkOrigin needs its params
  void peer.request('tool.sinkOrigin', {})
  expectTypeOf<Parameters<DaemonPeer['request']>[0]>().toEqualTypeOf<ServerRequestName>()
  // @ts-expect-error pong carries { ts: number }
  peer.notify('pong', { ts: '1' })
  // @ts-expect-error ping is the extension's notification
  peer.notify('ping', { ts: 1 })
})

test('a notification of the extension without the daemon’s handler does not type-check', () => {
  expectTypeOf<keyof NoteHandlers>().toEqualTypeOf<ClientNotificationName>()
  expectTypeOf<DaemonPeerOptions['notes']>().toEqualTypeOf<NoteHandlers>()
  const ping: NoteHandlers['ping'] = () => undefined
  // @ts-expect-error every notification the extension may send needs its handler
  const incomplete: NoteHandlers = { ping }
  expectTypeOf(incomplete).toEqualTypeOf<NoteHandlers>()
  expectTypeOf<Parameters<NoteHandlers['confirmation.response']>[0]>().toEqualTypeOf<{
    id: string
    decision: 'allow_once' | 'allow_always' | 'deny'
  }>()
  // @ts-expect-error tool.progress has no `percent`
  const wrong: NoteHandlers['tool.progress'] = (params) => void params.percent
  expectTypeOf(wrong).toBeFunction()
})
