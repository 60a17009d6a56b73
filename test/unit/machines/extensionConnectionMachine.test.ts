import { createTestModel } from '@xstate/graph'
import { assign, createActor, createMachine, SimulatedClock } from 'xstate'
import { describe, expect, it } from 'vitest'
import {
  EXTENSION_KEEPALIVE_TIMEOUT_MS,
  extensionConnectionMachine,
  type ExtensionConnectionEvent,
} from '../../../machines/extensionConnectionMachine'

/** The machine with recording fakes for every effect, on a simulated clock. */
function start() {
  const effects: string[] = []
  const clock = new SimulatedClock()
  const actor = createActor(
    extensionConnectionMachine.provide({
      actions: {
        sendSyncFull: (_, p) => void effects.push(`sync.full->${p.connectionId}`),
        sendPong: (_, p) => void effects.push(`pong(${p.ts})->${p.connectionId}`),
        closeSocket: (_, p) => void effects.push(`close ${p.connectionId} ${p.code} ${p.reason}`),
        connectionLost: () => void effects.push('connectionLost'),
      },
    }),
    { clock },
  ).start()
  return { actor, clock, effects }
}

describe('extensionConnectionMachine', () => {
  it('sends sync.full on connect and answers ping with pong', () => {
    const { actor, effects } = start()
    actor.send({ type: 'ws.opened', connectionId: 'a' })
    actor.send({ type: 'ws.ping', connectionId: 'a', ts: 42 })
    expect(actor.getSnapshot().value).toEqual({ connected: 'alive' })
    expect(effects).toEqual(['sync.full->a', 'pong(42)->a'])
  })

  it('replaces the active connection: closes the old one with 4000 "replaced" and fails its calls', () => {
    const { actor, effects } = start()
    actor.send({ type: 'ws.opened', connectionId: 'a' })
    actor.send({ type: 'ws.opened', connectionId: 'b' })
    expect(effects).toEqual(['sync.full->a', 'close a 4000 replaced', 'connectionLost', 'sync.full->b'])
    // The old socket's close event arrives later and changes nothing.
    actor.send({ type: 'ws.closed', connectionId: 'a' })
    expect(actor.getSnapshot().context.connectionId).toBe('b')
    expect(effects).toHaveLength(4)
  })

  it('goes to noConnection and fails in-flight calls when the active socket closes', () => {
    const { actor, effects } = start()
    actor.send({ type: 'ws.opened', connectionId: 'a' })
    actor.send({ type: 'ws.closed', connectionId: 'a' })
    expect(actor.getSnapshot().value).toBe('noConnection')
    expect(effects).toEqual(['sync.full->a', 'connectionLost'])
  })

  it('closes a silent connection after the keepalive timeout; any frame keeps it alive', () => {
    const { actor, clock, effects } = start()
    actor.send({ type: 'ws.opened', connectionId: 'a' })
    clock.increment(EXTENSION_KEEPALIVE_TIMEOUT_MS - 1)
    actor.send({ type: 'ws.activity', connectionId: 'a' })
    clock.increment(EXTENSION_KEEPALIVE_TIMEOUT_MS - 1)
    expect(actor.getSnapshot().value).toEqual({ connected: 'alive' })
    clock.increment(1)
    expect(actor.getSnapshot().value).toBe('noConnection')
    expect(effects).toEqual(['sync.full->a', 'close a 4001 keepalive timeout', 'connectionLost'])
  })

  it('ignores pings and activity from a replaced socket', () => {
    const { actor, clock, effects } = start()
    actor.send({ type: 'ws.opened', connectionId: 'a' })
    actor.send({ type: 'ws.opened', connectionId: 'b' })
    actor.send({ type: 'ws.ping', connectionId: 'a', ts: 1 })
    clock.increment(EXTENSION_KEEPALIVE_TIMEOUT_MS / 2)
    actor.send({ type: 'ws.activity', connectionId: 'a' })
    clock.increment(EXTENSION_KEEPALIVE_TIMEOUT_MS / 2)
    expect(actor.getSnapshot().value).toBe('noConnection')
    expect(effects.filter((e) => e.startsWith('pong'))).toEqual([])
  })
})

/**
 * The spec's view of the connection (SPEC.md "Extension connection"), written independently of the
 * implementation: the graph's paths drive the real machine and compare what it did.
 */
type ModelEvent = ExtensionConnectionEvent | { type: 'keepalive.expired' }
const specModel = createMachine({
  types: {} as { context: { active: string | undefined }; events: ModelEvent },
  context: { active: undefined },
  initial: 'noConnection',
  states: {
    noConnection: {
      on: {
        'ws.opened': { target: 'connected', actions: assign({ active: ({ event }) => event.connectionId }) },
      },
    },
    connected: {
      on: {
        'ws.opened': { target: 'connected', actions: assign({ active: ({ event }) => event.connectionId }) },
        'ws.closed': {
          guard: ({ context, event }) => context.active === event.connectionId,
          target: 'noConnection',
          actions: assign({ active: undefined }),
        },
        'ws.ping': {},
        'keepalive.expired': { target: 'noConnection', actions: assign({ active: undefined }) },
      },
    },
  },
})

describe('extensionConnectionMachine (model-based paths)', () => {
  const ids = ['a', 'b']
  const model = createTestModel(specModel, {
    events: (): ModelEvent[] => [
      ...ids.map((connectionId) => ({ type: 'ws.opened' as const, connectionId })),
      ...ids.map((connectionId) => ({ type: 'ws.closed' as const, connectionId })),
      ...ids.map((connectionId) => ({ type: 'ws.ping' as const, connectionId, ts: 7 })),
      { type: 'keepalive.expired' },
    ],
  })
  const paths = model.getSimplePaths({ allowDuplicatePaths: false })

  it('covers connect, replacement, loss and keepalive paths', () => {
    expect(paths.length).toBeGreaterThanOrEqual(6)
  })

  for (const path of paths)
    it(`follows ${path.description}`, async () => {
      const sut = start()
      // What the spec says must have happened so far.
      let active: string | undefined
      const expected: string[] = []
      const exec = (event: ModelEvent) => {
        if (event.type === 'ws.opened') {
          if (active) expected.push(`close ${active} 4000 replaced`, 'connectionLost')
          active = event.connectionId
          expected.push(`sync.full->${active}`)
          sut.actor.send(event)
        } else if (event.type === 'ws.closed') {
          if (active === event.connectionId) {
            expected.push('connectionLost')
            active = undefined
          }
          sut.actor.send(event)
        } else if (event.type === 'ws.ping') {
          if (active === event.connectionId) expected.push(`pong(${event.ts})->${active}`)
          sut.actor.send(event)
        } else if (event.type === 'keepalive.expired') {
          if (active) expected.push(`close ${active} 4001 keepalive timeout`, 'connectionLost')
          active = undefined
          sut.clock.increment(EXTENSION_KEEPALIVE_TIMEOUT_MS)
        }
      }
      await path.test({
        events: {
          'ws.opened': ({ event }) => exec(event as ModelEvent),
          'ws.closed': ({ event }) => exec(event as ModelEvent),
          'ws.ping': ({ event }) => exec(event as ModelEvent),
          'keepalive.expired': ({ event }) => exec(event),
        },
        states: {
          noConnection: () => {
            expect(sut.actor.getSnapshot().value).toBe('noConnection')
            expect(sut.effects).toEqual(expected)
          },
          connected: (state) => {
            expect(sut.actor.getSnapshot().value).toEqual({ connected: 'alive' })
            expect(sut.actor.getSnapshot().context.connectionId).toBe(state.context.active)
            expect(sut.effects).toEqual(expected)
          },
        },
      })
    })
})
