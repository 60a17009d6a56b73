/**
 * configStore against the spec's promise ("concurrent writes are serialized"), model-based: the
 * model only counts waiting changes; its paths drive the real machine with a hand-driven persist
 * effect and check that changes are applied one at a time, in order, each on top of the last success.
 */
import { createTestModel } from '@xstate/graph'
import { describe, expect, it } from 'vitest'
import { assign, createActor, createMachine, fromPromise } from 'xstate'
import {
  configStoreMachine,
  type ConfigDocument,
  type ConfigStoreEmitted,
  type PersistInput,
} from '../../../machines/configStoreMachine'

const MAX_WAITING = 3
type ModelEvent = { type: 'submit' } | { type: 'persist.succeeded' } | { type: 'persist.failed' }

const specModel = createMachine({
  types: {} as { context: { waiting: number }; events: ModelEvent },
  context: { waiting: 0 },
  initial: 'idle',
  states: {
    idle: { on: { submit: { target: 'persisting', actions: assign({ waiting: 1 }) } } },
    persisting: {
      on: {
        submit: {
          guard: ({ context }) => context.waiting < MAX_WAITING,
          actions: assign({ waiting: ({ context }) => context.waiting + 1 }),
        },
        'persist.succeeded': [
          { guard: ({ context }) => context.waiting === 1, target: 'idle', actions: assign({ waiting: 0 }) },
          { actions: assign({ waiting: ({ context }) => context.waiting - 1 }) },
        ],
        'persist.failed': [
          { guard: ({ context }) => context.waiting === 1, target: 'idle', actions: assign({ waiting: 0 }) },
          { actions: assign({ waiting: ({ context }) => context.waiting - 1 }) },
        ],
      },
    },
  },
})

const settle = () => new Promise((resolve) => setTimeout(resolve, 0))

function start() {
  const calls: { input: PersistInput; resolve: (doc: ConfigDocument) => void; reject: (e: Error) => void }[] =
    []
  const persist = fromPromise<ConfigDocument, PersistInput>(
    ({ input }) => new Promise((resolve, reject) => calls.push({ input, resolve, reject })),
  )
  const actor = createActor(configStoreMachine.provide({ actors: { persist } }), {
    input: { config: { version: 0 } },
  })
  const emitted: ConfigStoreEmitted[] = []
  actor.on('config.changed', (e) => emitted.push(e))
  actor.on('config.failed', (e) => emitted.push(e))
  actor.start()
  return { actor, calls, emitted }
}

describe('configStoreMachine (model-based paths)', () => {
  const model = createTestModel(specModel, {
    events: (): ModelEvent[] => [
      { type: 'submit' },
      { type: 'persist.succeeded' },
      { type: 'persist.failed' },
    ],
  })
  const paths = model.getShortestPaths().concat(model.getSimplePaths())

  it('covers queuing, success and failure paths', () => {
    expect(paths.length).toBeGreaterThanOrEqual(8)
  })

  for (const path of paths)
    it(`follows ${path.description}`, async () => {
      const sut = start()
      let submitted = 0
      let settled = 0
      let lastGood: ConfigDocument = { version: 0 }
      const expected: ConfigStoreEmitted[] = []
      const finish = async (ok: boolean) => {
        await settle()
        const call = sut.calls[settled]!
        // Each change starts from the result of the last successful one.
        expect(call.input.current).toEqual(lastGood)
        const requestId = `r${settled}`
        settled++
        if (ok) {
          const next = { version: settled }
          lastGood = next
          expected.push({ type: 'config.changed', requestId, config: next })
          call.resolve(next)
        } else {
          const error = new Error(`write ${requestId} failed`)
          expected.push({ type: 'config.failed', requestId, message: error.message, cause: error })
          call.reject(error)
        }
        await settle()
      }
      await path.test({
        events: {
          submit: async () => {
            sut.actor.send({
              type: 'config.change',
              requestId: `r${submitted++}`,
              change: { kind: 'reload' },
            })
            await settle()
          },
          'persist.succeeded': () => finish(true),
          'persist.failed': () => finish(false),
        },
        states: {
          idle: () => {
            expect(sut.actor.getSnapshot().value).toBe('idle')
            expect(sut.calls).toHaveLength(settled)
            expect(sut.emitted).toEqual(expected)
            expect(sut.actor.getSnapshot().context.config).toEqual(lastGood)
          },
          persisting: (state) => {
            expect(sut.actor.getSnapshot().value).toBe('persisting')
            // Exactly one write in flight, however many changes wait behind it.
            expect(sut.calls).toHaveLength(settled + 1)
            expect(sut.actor.getSnapshot().context.queue).toHaveLength(state.context.waiting)
            expect(sut.emitted).toEqual(expected)
          },
        },
      })
    })
})
