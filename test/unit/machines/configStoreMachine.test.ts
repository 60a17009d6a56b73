import { describe, expect, it } from 'vitest'
import { createActor, fromPromise } from 'xstate'
import { bridgeSystemMachine } from '../../../machines/bridgeSystemMachine'
import {
  configStoreMachine,
  type ConfigDocument,
  type ConfigStoreEmitted,
  type PersistInput,
} from '../../../machines/configStoreMachine'

/** A persist effect whose calls the test completes by hand, to control the interleaving. */
function manualPersist() {
  const calls: { input: PersistInput; resolve: (doc: ConfigDocument) => void; reject: (e: Error) => void }[] =
    []
  const actor = fromPromise<ConfigDocument, PersistInput>(
    ({ input }) => new Promise((resolve, reject) => calls.push({ input, resolve, reject })),
  )
  return { calls, actor }
}

function start(persist: ReturnType<typeof manualPersist>) {
  const actor = createActor(configStoreMachine.provide({ actors: { persist: persist.actor } }), {
    input: { config: { n: 0 } },
  })
  const emitted: ConfigStoreEmitted[] = []
  actor.on('config.changed', (e) => emitted.push(e))
  actor.on('config.failed', (e) => emitted.push(e))
  actor.start()
  return { actor, emitted }
}

const increment = (doc: ConfigDocument) => ({ ...doc, n: (doc.n as number) + 1 })
const settle = () => new Promise((resolve) => setTimeout(resolve, 0))

describe('configStoreMachine', () => {
  it('starts idle with the config it was given', () => {
    const { actor } = start(manualPersist())
    expect(actor.getSnapshot().value).toBe('idle')
    expect(actor.getSnapshot().context.config).toEqual({ n: 0 })
  })

  it('persists one change at a time, in arrival order, each from the result of the previous', async () => {
    const persist = manualPersist()
    const { actor, emitted } = start(persist)
    for (const id of ['a', 'b', 'c'])
      actor.send({ type: 'config.change', requestId: id, change: { kind: 'update', mutate: increment } })
    await settle()
    expect(actor.getSnapshot().value).toBe('persisting')
    expect(persist.calls).toHaveLength(1)
    expect(persist.calls[0]!.input.current).toEqual({ n: 0 })

    persist.calls[0]!.resolve({ n: 1 })
    await settle()
    expect(persist.calls).toHaveLength(2)
    expect(persist.calls[1]!.input.current).toEqual({ n: 1 })
    persist.calls[1]!.resolve({ n: 2 })
    await settle()
    persist.calls[2]!.resolve({ n: 3 })
    await settle()

    expect(emitted).toEqual([
      { type: 'config.changed', requestId: 'a', config: { n: 1 } },
      { type: 'config.changed', requestId: 'b', config: { n: 2 } },
      { type: 'config.changed', requestId: 'c', config: { n: 3 } },
    ])
    expect(actor.getSnapshot().value).toBe('idle')
    expect(actor.getSnapshot().context.config).toEqual({ n: 3 })
  })

  it('reports a failed change, keeps the old config and goes on with the next one', async () => {
    const persist = manualPersist()
    const { actor, emitted } = start(persist)
    actor.send({ type: 'config.change', requestId: 'bad', change: { kind: 'update', mutate: increment } })
    actor.send({ type: 'config.change', requestId: 'good', change: { kind: 'reload' } })
    await settle()
    const diskFull = new Error('disk full')
    persist.calls[0]!.reject(diskFull)
    await settle()
    expect(actor.getSnapshot().context.config).toEqual({ n: 0 })
    expect(persist.calls[1]!.input).toEqual({ current: { n: 0 }, change: { kind: 'reload' } })
    persist.calls[1]!.resolve({ n: 7 })
    await settle()
    expect(emitted).toEqual([
      { type: 'config.failed', requestId: 'bad', message: 'disk full', cause: diskFull },
      { type: 'config.changed', requestId: 'good', config: { n: 7 } },
    ])
  })

  it('fails every change when no persist effect is provided', async () => {
    const actor = createActor(configStoreMachine, { input: { config: {} } })
    const emitted: ConfigStoreEmitted[] = []
    actor.on('config.failed', (e) => emitted.push(e))
    actor.start()
    actor.send({ type: 'config.change', requestId: 'x', change: { kind: 'reload' } })
    await settle()
    expect(emitted).toEqual([
      {
        type: 'config.failed',
        requestId: 'x',
        message: 'configStore: persist is not provided',
        cause: expect.any(Error),
      },
    ])
  })
})

describe('bridgeSystemMachine', () => {
  it('runs configStore under the systemId "configStore" with the initial config, and stops', () => {
    const system = createActor(bridgeSystemMachine, { input: { config: { port: 9515 } } })
    system.start()
    const store = system.system.get('configStore')
    expect(store).toBeDefined()
    expect(store?.getSnapshot().context.config).toEqual({ port: 9515 })
    system.send({ type: 'system.stop' })
    expect(system.getSnapshot().status).toBe('done')
    expect(system.system.get('configStore')).toBeUndefined()
  })
})
