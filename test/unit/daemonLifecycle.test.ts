import { describe, expect, it } from 'vitest'
import { createActor } from 'xstate'
import { bridgeSystemMachine } from '../../machines/bridgeSystemMachine'
import { startListening, type LifecycleParts } from '../../src/daemonLifecycle'

function startRoot() {
  const root = createActor(bridgeSystemMachine.provide({ delays: { drainGrace: 20 } }), {
    input: { config: {} },
  })
  root.start()
  return root
}

/** The parts of a daemon whose front listens with `listen`; each part notes in `events` when it ends. */
function partsOf(listen: (port: number) => Promise<number>, events: string[]): LifecycleParts {
  const root = startRoot()
  return {
    port: 0,
    root,
    front: { listen, engine: { stop: () => Promise.resolve(void events.push('engine stopped')) } },
    inspector: { stop: () => void events.push('inspector stopped') },
    release: () => {
      const state = root.getSnapshot().matches({ live: 'drained' }) ? 'drained' : 'not drained'
      events.push(`parts released, the root ${state}`)
      return Promise.resolve()
    },
  }
}

describe('startListening', () => {
  it('releases what already started and stops the root, then rethrows, when the port cannot be bound', async () => {
    const events: string[] = []
    const refusal = new Error('listen EADDRINUSE: address already in use 127.0.0.1:9600')
    const parts = partsOf(() => Promise.reject(refusal), events)

    await expect(startListening(parts)).rejects.toBe(refusal)

    // The engine never started, so it is not stopped; the root is.
    expect(events).toEqual(['parts released, the root not drained', 'inspector stopped'])
    expect(parts.root.getSnapshot().status).not.toBe('active')
  })

  it('answers with the bound port and keeps the root running until stop', async () => {
    const events: string[] = []
    const parts = partsOf(() => Promise.resolve(41234), events)

    const listening = await startListening(parts)

    expect(listening.port).toBe(41234)
    expect(parts.root.getSnapshot().matches({ live: 'running' })).toBe(true)
    expect(events).toEqual([])
  })

  it('stops by draining the root first, then releasing the parts, the engine, the root and the inspector', async () => {
    const events: string[] = []
    const parts = partsOf(() => Promise.resolve(41234), events)
    const listening = await startListening(parts)

    await listening.stop()

    expect(events).toEqual(['parts released, the root drained', 'engine stopped', 'inspector stopped'])
    expect(parts.root.getSnapshot().status).not.toBe('active')
  })
})
