import { createTestModel } from '@xstate/graph'
import { assign, createActor, createMachine, fromPromise } from 'xstate'
import { describe, expect, it } from 'vitest'
import {
  reloadMachine,
  type DiscoveryOutcome,
  type ReloadFinished,
  type ReloadReason,
} from '../../../machines/reloadMachine'

/**
 * DESIGN.md section 5's reload actor as an independent model: one run at a time; any number of
 * requests during a run become exactly one more run. Runs are bounded so the graph is finite. Every
 * simple path drives the real machine and compares runs started, runs finished and reloads counted.
 */
type ModelEvent = { type: 'request' } | { type: 'finish' } | { type: 'fail' }
const MAX_RUNS = 3

const specModel = createMachine({
  types: {} as {
    context: { started: number; finished: number; counted: number; pending: boolean }
    events: ModelEvent
  },
  context: { started: 0, finished: 0, counted: 0, pending: false },
  initial: 'idle',
  states: {
    idle: {
      on: {
        request: {
          guard: ({ context }) => context.started < MAX_RUNS,
          target: 'reloading',
          actions: assign({ started: ({ context }) => context.started + 1 }),
        },
      },
    },
    reloading: {
      on: {
        // A request while one is already pending changes nothing: it coalesces.
        request: {
          guard: ({ context }) => context.pending || context.started < MAX_RUNS,
          actions: assign({ pending: true }),
        },
        finish: [
          {
            guard: ({ context }) => context.pending,
            target: 'reloading',
            reenter: true,
            actions: assign(({ context }) => ({
              finished: context.finished + 1,
              counted: context.counted + 1,
              started: context.started + 1,
              pending: false,
            })),
          },
          {
            target: 'idle',
            actions: assign(({ context }) => ({
              finished: context.finished + 1,
              counted: context.counted + 1,
            })),
          },
        ],
        fail: [
          {
            guard: ({ context }) => context.pending,
            target: 'reloading',
            reenter: true,
            actions: assign(({ context }) => ({
              finished: context.finished + 1,
              started: context.started + 1,
              pending: false,
            })),
          },
          { target: 'idle', actions: assign(({ context }) => ({ finished: context.finished + 1 })) },
        ],
      },
    },
  },
})

function startReal() {
  const runs: Array<{ resolve: (o: DiscoveryOutcome) => void; reject: (e: Error) => void }> = []
  const actor = createActor(
    reloadMachine.provide({
      actors: {
        discover: fromPromise<DiscoveryOutcome, { reason: ReloadReason; run: number }>(
          () => new Promise((resolve, reject) => runs.push({ resolve, reject })),
        ),
      },
    }),
  )
  const finished: ReloadFinished[] = []
  actor.on('reload.finished', (e) => finished.push(e))
  actor.start()
  return { actor, runs, finished }
}

const flush = () => new Promise((r) => setTimeout(r, 0))
const snapshotOf = (state: { context: { started: number; pending: boolean }; value: unknown }) => ({
  started: state.context.started,
  pending: state.context.pending,
  reloading: state.value === 'reloading',
})

describe('reloadMachine (model-based paths)', () => {
  const paths = createTestModel(specModel, {
    events: [{ type: 'request' }, { type: 'finish' }, { type: 'fail' }],
  }).getSimplePaths()

  it('covers coalescing, failures and back-to-back runs', () => {
    expect(paths.length).toBeGreaterThan(10)
    expect(
      paths.some((p) => p.state.context.started === MAX_RUNS && p.state.context.finished === MAX_RUNS),
    ).toBe(true)
  })

  for (const path of paths)
    it(`follows ${path.description}`, async () => {
      const sut = startReal()
      let settled = 0
      let model = { started: 0, pending: false, reloading: false }
      await path.test({
        events: {
          request: async (step) => {
            // Past the run bound the model ignores a request (it would start another run), so the
            // real machine is not sent one; a request while one is pending is sent: it must coalesce.
            const ignored = model.started >= MAX_RUNS && !(model.reloading && model.pending)
            model = snapshotOf(step.state)
            if (ignored) return
            sut.actor.send({ type: 'reload.request', reason: 'request' })
            await flush()
          },
          finish: async (step) => {
            model = snapshotOf(step.state)
            sut.runs[settled++]!.resolve({ ok: true, plugins: settled, startedAt: 1_000, durationMs: 5 })
            await flush()
          },
          fail: async (step) => {
            model = snapshotOf(step.state)
            sut.runs[settled++]!.reject(new Error('broken'))
            await flush()
          },
        },
        states: {
          idle: (state) => {
            expect(sut.actor.getSnapshot().value).toBe('idle')
            expect(sut.runs).toHaveLength(state.context.started)
            expect(sut.finished.map((f) => f.run)).toEqual(
              Array.from({ length: state.context.finished }, (_, i) => i + 1),
            )
            expect(sut.actor.getSnapshot().context.reloadCount).toBe(state.context.counted)
          },
          reloading: (state) => {
            expect(sut.actor.getSnapshot().value).toBe('reloading')
            expect(sut.runs).toHaveLength(state.context.started)
            expect(sut.actor.getSnapshot().context.runsStarted).toBe(state.context.started)
            expect(sut.finished).toHaveLength(state.context.finished)
          },
        },
      })
    })
})
