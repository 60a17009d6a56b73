/**
 * The root of the daemon's actor system (DESIGN.md section 5). It owns the long-lived actors, each
 * under a `systemId` (`system.get('configStore')`, `'reload'`, `'extensionConnection'`), and spawns
 * the dynamic children `pluginTab:<plugin>`, `mcpSession:<uuid>` and `toolInvocation:<uuid>`, which
 * it stops with `stopChild`. The daemon provides every effect with `.provide()`: the long-lived ones
 * on this machine, a session's or a call's own effects on the logic carried by its spawn event.
 */
import { enqueueActions, setup, stopChild, type AnyActorLogic } from 'xstate'
import { configStoreMachine, type ConfigDocument } from './configStoreMachine'
import { extensionConnectionMachine } from './extensionConnectionMachine'
import type { McpSessionInput } from './mcpSessionMachine'
import { pluginTabMachine } from './pluginTabMachine'
import { reloadMachine } from './reloadMachine'
import type { ToolInvocationInput } from './toolInvocationMachine'

/** Prefixes of the spawned children's ids; the rest of the id is the plugin name or a UUID. */
export const SPAWNED_CHILD_KINDS = ['pluginTab', 'mcpSession', 'toolInvocation'] as const
export type SpawnedChildKind = (typeof SPAWNED_CHILD_KINDS)[number]

/** The id a spawned child has in the root snapshot's `children`. */
export const childId = (kind: SpawnedChildKind, key: string): string => `${kind}:${key}`

/**
 * Events the root takes. A spawn's `logic` is typed loosely on purpose: naming the child machines'
 * types here made TypeScript's inference of their `.provide()` calls depend on file check order.
 */
export type BridgeSystemEvent =
  | { type: 'system.stop' }
  | { type: 'pluginTab.spawn'; plugin: string }
  | { type: 'pluginTab.stop'; plugin: string }
  /** `logic` is mcpSessionMachine with the session's own effects provided. */
  | { type: 'mcpSession.spawn'; logic: AnyActorLogic; input: McpSessionInput }
  | { type: 'mcpSession.stop'; sessionId: string }
  /** `logic` is toolInvocationMachine with the call's own effects provided. */
  | { type: 'toolInvocation.spawn'; logic: AnyActorLogic; input: ToolInvocationInput }
  | { type: 'toolInvocation.stop'; invocationId: string }

const ERROR_PREFIX = 'xstate.error.actor.'
const DONE_PREFIX = 'xstate.done.actor.'

/** The child id in an `xstate.done.actor.<id>` / `xstate.error.actor.<id>` event. */
const endedChildId = (type: string): string =>
  type.startsWith(ERROR_PREFIX) ? type.slice(ERROR_PREFIX.length) : type.slice(DONE_PREFIX.length)

/** The id of the child a spawn event starts, and its own implementation with its input. */
function spawnTarget(
  event: BridgeSystemEvent,
): { id: string; logic: AnyActorLogic; input: unknown } | undefined {
  switch (event.type) {
    case 'pluginTab.spawn':
      return {
        id: childId('pluginTab', event.plugin),
        logic: pluginTabMachine,
        input: { plugin: event.plugin },
      }
    case 'mcpSession.spawn':
      return { id: childId('mcpSession', event.input.sessionId), logic: event.logic, input: event.input }
    case 'toolInvocation.spawn':
      return {
        id: childId('toolInvocation', event.input.invocationId),
        logic: event.logic,
        input: event.input,
      }
    default:
      return undefined
  }
}

/** The id of the child a stop event names. */
function stopTarget(event: BridgeSystemEvent): string {
  switch (event.type) {
    case 'pluginTab.stop':
      return childId('pluginTab', event.plugin)
    case 'mcpSession.stop':
      return childId('mcpSession', event.sessionId)
    case 'toolInvocation.stop':
      return childId('toolInvocation', event.invocationId)
    default:
      return ''
  }
}

export const bridgeSystemMachine = setup({
  types: {
    input: {} as { config: ConfigDocument },
    context: {} as { initialConfig: ConfigDocument },
    events: {} as BridgeSystemEvent,
  },
  actors: {
    configStore: configStoreMachine,
    reload: reloadMachine,
    extensionConnection: extensionConnectionMachine,
  },
  actions: {
    spawnFromEvent: enqueueActions(({ enqueue, event }) => {
      const target = spawnTarget(event)
      if (!target) return
      // A second spawn of a live id would orphan the first child: the id already names one.
      enqueue.stopChild(target.id)
      // XState's types allow an `id` only for logic named in setup; the logic here is the spawn
      // event's own (its effects provided), which the runtime spawns under the given id all the same.
      const spawn = enqueue.spawnChild as unknown as (
        logic: AnyActorLogic,
        options: { id: string; input: unknown },
      ) => void
      spawn(target.logic, { id: target.id, input: target.input })
    }),
    stopNamedChild: stopChild(({ event }) => stopTarget(event)),
    /** A spawned child that finished or failed is removed; its owner has already seen the end. */
    stopEndedChild: stopChild(({ event }) => endedChildId(event.type)),
  },
  guards: {
    /** Only spawned children end this way on purpose; a long-lived actor that fails still fails the root. */
    isSpawnedChild: ({ event }) =>
      SPAWNED_CHILD_KINDS.some((kind) => endedChildId(event.type).startsWith(`${kind}:`)),
  },
}).createMachine({
  id: 'bridgeSystem',
  context: ({ input }) => ({ initialConfig: input.config }),
  initial: 'running',
  states: {
    running: {
      invoke: [
        {
          id: 'configStore',
          systemId: 'configStore',
          src: 'configStore',
          input: ({ context }) => ({ config: context.initialConfig }),
        },
        { id: 'reload', systemId: 'reload', src: 'reload' },
        { id: 'extensionConnection', systemId: 'extensionConnection', src: 'extensionConnection' },
      ],
      on: {
        'system.stop': 'stopped',
        'pluginTab.spawn': { actions: 'spawnFromEvent' },
        'mcpSession.spawn': { actions: 'spawnFromEvent' },
        'toolInvocation.spawn': { actions: 'spawnFromEvent' },
        'pluginTab.stop': { actions: 'stopNamedChild' },
        'mcpSession.stop': { actions: 'stopNamedChild' },
        'toolInvocation.stop': { actions: 'stopNamedChild' },
        'xstate.done.actor.*': { guard: 'isSpawnedChild', actions: 'stopEndedChild' },
        'xstate.error.actor.*': { guard: 'isSpawnedChild', actions: 'stopEndedChild' },
      },
    },
    stopped: { type: 'final' },
  },
})
