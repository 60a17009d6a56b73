/**
 * configStore: the one writer of config.json. Every change (a read-modify-write from the side panel,
 * the CLI, a permission toggle, or a re-read of the file) is queued and applied one at a time, so two
 * concurrent updates can never lose each other's edits. The `persist` actor (provided by the daemon)
 * does the I/O; this machine only orders the work and reports each outcome as an emitted event.
 */
import { assign, emit, fromPromise, setup } from 'xstate'

/** The validated config document (the daemon knows its exact type; this machine does not need to). */
export type ConfigDocument = Readonly<Record<string, unknown>>

export type ConfigChange =
  /** Compute the next document from the current one and write it. */
  | { kind: 'update'; mutate: (current: ConfigDocument) => ConfigDocument }
  /** Re-read the file (after an outside edit) and adopt what is there. */
  | { kind: 'reload' }

interface PendingChange {
  requestId: string
  change: ConfigChange
}

export interface PersistInput {
  current: ConfigDocument
  change: ConfigChange
}

export type ConfigStoreEmitted =
  | { type: 'config.changed'; requestId: string; config: ConfigDocument }
  /** `cause` is what the persist effect threw, so the daemon can pass its error code on. */
  | { type: 'config.failed'; requestId: string; message: string; cause: unknown }

export const configStoreMachine = setup({
  types: {
    input: {} as { config: ConfigDocument },
    context: {} as { config: ConfigDocument; queue: PendingChange[] },
    events: {} as { type: 'config.change'; requestId: string; change: ConfigChange },
    emitted: {} as ConfigStoreEmitted,
  },
  actors: {
    persist: fromPromise<ConfigDocument, PersistInput>(() =>
      Promise.reject(new Error('configStore: persist is not provided')),
    ),
  },
  guards: {
    hasQueuedChange: ({ context }) => context.queue.length > 0,
  },
}).createMachine({
  id: 'configStore',
  context: ({ input }) => ({ config: input.config, queue: [] }),
  initial: 'idle',
  on: {
    'config.change': {
      actions: assign({
        queue: ({ context, event }) => [
          ...context.queue,
          { requestId: event.requestId, change: event.change },
        ],
      }),
    },
  },
  states: {
    idle: {
      always: { guard: 'hasQueuedChange', target: 'persisting' },
    },
    persisting: {
      invoke: {
        src: 'persist',
        input: ({ context }) => ({ current: context.config, change: context.queue[0]!.change }),
        onDone: {
          target: 'idle',
          actions: [
            assign({ config: ({ event }) => event.output }),
            emit(({ context, event }) => ({
              type: 'config.changed' as const,
              requestId: context.queue[0]!.requestId,
              config: event.output,
            })),
            assign({ queue: ({ context }) => context.queue.slice(1) }),
          ],
        },
        onError: {
          target: 'idle',
          actions: [
            emit(({ context, event }) => ({
              type: 'config.failed' as const,
              requestId: context.queue[0]!.requestId,
              message: event.error instanceof Error ? event.error.message : String(event.error),
              cause: event.error,
            })),
            assign({ queue: ({ context }) => context.queue.slice(1) }),
          ],
        },
      },
    },
  },
})
