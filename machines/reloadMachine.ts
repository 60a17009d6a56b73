/**
 * reload: plugin rediscovery, one run at a time. `idle` -> `reloading` -> `idle`. Requests that arrive
 * while a run is going coalesce into exactly one more run (the current run may have read the disk
 * before the change that prompted them). Each finished run is emitted as `reload.finished` with its
 * run number, so a caller waits for the first run numbered after the runs started before its request.
 * The startup discovery runs through here too but is not counted as a reload.
 */
import { assign, emit, fromPromise, setup } from 'xstate'

export type ReloadReason = 'startup' | 'request' | 'watch'

/** What the `discover` effect reports. It should resolve even on failure (`ok: false`). */
export interface DiscoveryOutcome {
  ok: boolean
  plugins: number
  /** ms since epoch when the run started. */
  startedAt: number
  durationMs: number
  error?: string
}

export interface ReloadFinished {
  type: 'reload.finished'
  run: number
  ok: boolean
  plugins: number
  durationMs: number
  error?: string
}

export interface ReloadContext {
  /** Runs started so far (the current run's number while reloading). */
  runsStarted: number
  /** Reason of the current run. */
  reason: ReloadReason | null
  /** A request arrived during the current run: its reason (non-startup wins when several merge). */
  pending: ReloadReason | null
  reloadCount: number
  /** ms since epoch when the last counted reload finished; 0 before the first. */
  lastReloadTimestamp: number
  lastReloadDurationMs: number
}

const merge = (a: ReloadReason | null, b: ReloadReason): ReloadReason =>
  a === null || a === 'startup' ? b : a

export const reloadMachine = setup({
  types: {
    context: {} as ReloadContext,
    events: {} as { type: 'reload.request'; reason: ReloadReason },
    emitted: {} as ReloadFinished,
  },
  actors: {
    discover: fromPromise<DiscoveryOutcome, { reason: ReloadReason; run: number }>(() =>
      Promise.reject(new Error('reload: discover is not provided')),
    ),
  },
  guards: {
    hasPending: ({ context }) => context.pending !== null,
  },
}).createMachine({
  id: 'reload',
  context: {
    runsStarted: 0,
    reason: null,
    pending: null,
    reloadCount: 0,
    lastReloadTimestamp: 0,
    lastReloadDurationMs: 0,
  },
  initial: 'idle',
  states: {
    idle: {
      always: {
        guard: 'hasPending',
        target: 'reloading',
        actions: assign(({ context }) => ({
          runsStarted: context.runsStarted + 1,
          reason: context.pending,
          pending: null,
        })),
      },
      on: {
        'reload.request': {
          target: 'reloading',
          actions: assign(({ context, event }) => ({
            runsStarted: context.runsStarted + 1,
            reason: event.reason,
          })),
        },
      },
    },
    reloading: {
      on: {
        'reload.request': {
          actions: assign({ pending: ({ context, event }) => merge(context.pending, event.reason) }),
        },
      },
      invoke: {
        src: 'discover',
        input: ({ context }) => ({ reason: context.reason ?? 'request', run: context.runsStarted }),
        onDone: {
          target: 'idle',
          actions: [
            assign(({ context, event }) =>
              context.reason === 'startup'
                ? {}
                : {
                    reloadCount: context.reloadCount + 1,
                    lastReloadTimestamp: event.output.startedAt + event.output.durationMs,
                    lastReloadDurationMs: event.output.durationMs,
                  },
            ),
            emit(({ context, event }) => ({
              type: 'reload.finished' as const,
              run: context.runsStarted,
              ok: event.output.ok,
              plugins: event.output.plugins,
              durationMs: event.output.durationMs,
              ...(event.output.error !== undefined ? { error: event.output.error } : {}),
            })),
          ],
        },
        onError: {
          target: 'idle',
          actions: emit(({ context, event }) => ({
            type: 'reload.finished' as const,
            run: context.runsStarted,
            ok: false,
            plugins: 0,
            durationMs: 0,
            error: event.error instanceof Error ? event.error.message : String(event.error),
          })),
        },
      },
    },
  },
})
