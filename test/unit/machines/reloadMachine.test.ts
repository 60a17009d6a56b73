import { createActor, fromPromise } from 'xstate'
import { describe, expect, it } from 'vitest'
import {
  reloadMachine,
  type DiscoveryOutcome,
  type ReloadFinished,
  type ReloadReason,
} from '../../../machines/reloadMachine'

/** A reload actor whose discovery runs are settled by the test, one deferred per run. */
function harness() {
  const runs: Array<{
    reason: ReloadReason
    run: number
    resolve: (o: DiscoveryOutcome) => void
    reject: (e: Error) => void
  }> = []
  const actor = createActor(
    reloadMachine.provide({
      actors: {
        discover: fromPromise<DiscoveryOutcome, { reason: ReloadReason; run: number }>(
          ({ input }) => new Promise((resolve, reject) => runs.push({ ...input, resolve, reject })),
        ),
      },
    }),
  )
  const finished: ReloadFinished[] = []
  actor.on('reload.finished', (event) => finished.push(event))
  actor.start()
  const flush = () => new Promise((r) => setTimeout(r, 0))
  return { actor, runs, finished, flush }
}

const outcome = (plugins: number, startedAt = 1_000, durationMs = 25): DiscoveryOutcome => ({
  ok: true,
  plugins,
  startedAt,
  durationMs,
})

describe('reloadMachine', () => {
  it('runs one discovery per request and records count, timestamp and duration', async () => {
    const { actor, runs, finished, flush } = harness()
    expect(actor.getSnapshot().value).toBe('idle')
    actor.send({ type: 'reload.request', reason: 'request' })
    expect(actor.getSnapshot().value).toBe('reloading')
    expect(runs.map((r) => [r.reason, r.run])).toEqual([['request', 1]])
    runs[0]!.resolve(outcome(3, 5_000, 40))
    await flush()
    expect(actor.getSnapshot().value).toBe('idle')
    expect(actor.getSnapshot().context).toMatchObject({
      reloadCount: 1,
      lastReloadTimestamp: 5_040,
      lastReloadDurationMs: 40,
    })
    expect(finished).toEqual([{ type: 'reload.finished', run: 1, ok: true, plugins: 3, durationMs: 40 }])
  })

  it('coalesces every request made during a run into exactly one more run', async () => {
    const { actor, runs, finished, flush } = harness()
    actor.send({ type: 'reload.request', reason: 'request' })
    actor.send({ type: 'reload.request', reason: 'request' })
    actor.send({ type: 'reload.request', reason: 'watch' })
    actor.send({ type: 'reload.request', reason: 'request' })
    expect(runs).toHaveLength(1)
    runs[0]!.resolve(outcome(1))
    await flush()
    expect(actor.getSnapshot().value).toBe('reloading')
    expect(runs.map((r) => [r.reason, r.run])).toEqual([
      ['request', 1],
      ['request', 2],
    ])
    runs[1]!.resolve(outcome(2))
    await flush()
    expect(actor.getSnapshot().value).toBe('idle')
    expect(runs).toHaveLength(2)
    expect(finished.map((f) => [f.run, f.plugins])).toEqual([
      [1, 1],
      [2, 2],
    ])
    expect(actor.getSnapshot().context.reloadCount).toBe(2)
  })

  it('does not count the startup discovery as a reload', async () => {
    const { actor, runs, finished, flush } = harness()
    actor.send({ type: 'reload.request', reason: 'startup' })
    runs[0]!.resolve(outcome(4))
    await flush()
    expect(actor.getSnapshot().context).toMatchObject({
      reloadCount: 0,
      lastReloadTimestamp: 0,
      lastReloadDurationMs: 0,
    })
    expect(finished).toEqual([{ type: 'reload.finished', run: 1, ok: true, plugins: 4, durationMs: 25 }])
  })

  it('counts a request that coalesced into a startup run', async () => {
    const { actor, runs, flush } = harness()
    actor.send({ type: 'reload.request', reason: 'startup' })
    actor.send({ type: 'reload.request', reason: 'request' })
    runs[0]!.resolve(outcome(1))
    await flush()
    expect(runs[1]!.reason).toBe('request')
    runs[1]!.resolve(outcome(1))
    await flush()
    expect(actor.getSnapshot().context.reloadCount).toBe(1)
  })

  it('reports a failed discovery and stays usable', async () => {
    const { actor, runs, finished, flush } = harness()
    actor.send({ type: 'reload.request', reason: 'request' })
    runs[0]!.reject(new Error('disk on fire'))
    await flush()
    expect(actor.getSnapshot().value).toBe('idle')
    expect(finished).toEqual([
      { type: 'reload.finished', run: 1, ok: false, plugins: 0, durationMs: 0, error: 'disk on fire' },
    ])
    expect(actor.getSnapshot().context.reloadCount).toBe(0)
    actor.send({ type: 'reload.request', reason: 'request' })
    runs[1]!.resolve({ ok: false, plugins: 0, startedAt: 9, durationMs: 1, error: 'config.json broken' })
    await flush()
    expect(finished[1]).toEqual({
      type: 'reload.finished',
      run: 2,
      ok: false,
      plugins: 0,
      durationMs: 1,
      error: 'config.json broken',
    })
    expect(actor.getSnapshot().context.reloadCount).toBe(1)
  })
})
