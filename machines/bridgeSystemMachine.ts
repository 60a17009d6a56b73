/**
 * The root of the daemon's actor system (DESIGN.md section 5). It owns the long-lived actors, each
 * under a `systemId` (`system.get('configStore')`, `'reload'`, `'extensionConnection'`), and spawns
 * the dynamic children from the logic named here, which the daemon provides once with `.provide()`:
 * `pluginTab:<plugin>` and `toolInvocation:<uuid>` (their systemIds). Anyone finds an actor through
 * the typed lookups of ./systemActors (`pluginTabOf(system, plugin)`); nobody reads the root's
 * `children`. An MCP session is no actor: it is a plain object of src/mcp/sessionRevision.ts.
 */
import { assign, enqueueActions, setup, stopChild, type ActorRefFrom, type AnyActorRef } from 'xstate'
import { configStoreMachine, type ConfigDocument } from './configStoreMachine'
import { extensionConnectionMachine } from './extensionConnectionMachine'
import { pluginTabMachine } from './pluginTabMachine'
import { reloadMachine } from './reloadMachine'
import { pluginTabOf, systemIdOf } from './systemActors'
import {
  toolInvocationMachine,
  type ToolInvocationInput,
  type ToolInvocationRef,
} from './toolInvocationMachine'

export { systemIdOf } from './systemActors'

export type BridgeSystemEvent =
  /** The daemon is shutting down: calls in flight get a grace period, then fail with shutting_down. */
  | { type: 'system.drain' }
  | { type: 'system.stop' }
  | { type: 'pluginTab.spawn'; plugin: string }
  | { type: 'pluginTab.stop'; plugin: string }
  | { type: 'toolInvocation.spawn'; input: ToolInvocationInput }
  /** The extension connection went away: every plugin tab closes, every call waiting on it fails. */
  | { type: 'extension.lost' }
  /** The tool catalog was rebuilt: every call hears it (one waiting on a changed declaration ends). */
  | { type: 'catalog.changed' }

/** How long calls in flight may take to finish once draining starts, and then to record their failure. */
export const DRAIN_GRACE_MS = 1_500

/** Kinds whose children end on their own (final state) and are then removed. */
const ENDING_KINDS = ['toolInvocation'] as const
type EndingKind = (typeof ENDING_KINDS)[number]

const DONE_PREFIX = 'xstate.done.actor.'
const ERROR_PREFIX = 'xstate.error.actor.'
const endedChildId = (type: string): string =>
  type.startsWith(ERROR_PREFIX) ? type.slice(ERROR_PREFIX.length) : type.slice(DONE_PREFIX.length)

/**
 * The child id of a call is `<kind>#<n>`, the lowest number not in use, while its
 * systemId carries the UUID. XState keeps, per state node, a cache entry for every event type it has
 * seen, and a child's end reaches the root as `xstate.done.actor.<child id>`: unique ids would grow
 * that cache by one entry per call, for good. Reused numbers keep it as small as the peak of calls.
 */
function freeChildId(children: Record<string, AnyActorRef | undefined>, kind: EndingKind): string {
  let n = 0
  while (children[`${kind}#${n}`]) n++
  return `${kind}#${n}`
}

export const bridgeSystemMachine = setup({
  types: {
    input: {} as { config: ConfigDocument },
    /** `callsRunning`: toolInvocation children not ended yet (what draining waits for). */
    context: {} as { initialConfig: ConfigDocument; callsRunning: number },
    events: {} as BridgeSystemEvent,
  },
  actors: {
    configStore: configStoreMachine,
    reload: reloadMachine,
    extensionConnection: extensionConnectionMachine,
    pluginTab: pluginTabMachine,
    toolInvocation: toolInvocationMachine,
  },
  actions: {
    spawnPluginTab: enqueueActions(({ enqueue, event, system }) => {
      if (event.type !== 'pluginTab.spawn') return
      if (pluginTabOf(system, event.plugin)) return
      const systemId = systemIdOf('pluginTab', event.plugin)
      enqueue.spawnChild('pluginTab', { id: systemId, systemId, input: { plugin: event.plugin } })
    }),
    stopPluginTab: stopChild(({ event }) =>
      event.type === 'pluginTab.stop' ? systemIdOf('pluginTab', event.plugin) : '',
    ),
    // The call is spawned and counted in one step (one snapshot); its ref lives in `children` only.
    spawnInvocation: assign({
      callsRunning: ({ context, event, spawn, self }) => {
        if (event.type !== 'toolInvocation.spawn') return context.callsRunning
        spawn('toolInvocation', {
          id: freeChildId(self.getSnapshot().children, 'toolInvocation'),
          systemId: systemIdOf('toolInvocation', event.input.invocationId),
          input: event.input,
        })
        return context.callsRunning + 1
      },
    }),
    /** The grace period is over: every call still running fails with shutting_down (and records it). */
    stopCalls: enqueueActions(({ enqueue, self }) => {
      for (const [id, child] of Object.entries(self.getSnapshot().children as Record<string, AnyActorRef>))
        if (id.startsWith('toolInvocation#')) enqueue.sendTo(child, { type: 'daemon.stopping' })
    }),
    /** Tells every plugin tab and every call that the extension is gone. */
    broadcastExtensionLost: enqueueActions(({ enqueue, self }) => {
      for (const [id, child] of Object.entries(self.getSnapshot().children as Record<string, AnyActorRef>))
        if (id.startsWith('pluginTab:') || id.startsWith('toolInvocation#'))
          enqueue.sendTo(child, { type: 'extension.lost' })
    }),
    /** Tells every call that the catalog changed. */
    broadcastCatalogChanged: enqueueActions(({ enqueue, self }) => {
      for (const [id, child] of Object.entries(self.getSnapshot().children as Record<string, AnyActorRef>))
        if (id.startsWith('toolInvocation#')) enqueue.sendTo(child, { type: 'catalog.changed' })
    }),
    /** A call that finished or failed is removed; its owner has already seen the end. */
    stopEndedChild: stopChild(({ event }) => endedChildId(event.type)),
    countEndedCall: assign({ callsRunning: ({ context }) => Math.max(0, context.callsRunning - 1) }),
  },
  guards: {
    noCallRunning: ({ context }) => context.callsRunning === 0,
    /** Only calls end this way on purpose; a long-lived actor that fails still fails the root. */
    isEndingChild: ({ event }) =>
      ENDING_KINDS.some((kind) => endedChildId(event.type).startsWith(`${kind}#`)),
  },
  delays: { drainGrace: DRAIN_GRACE_MS },
}).createMachine({
  id: 'bridgeSystem',
  context: ({ input }) => ({ initialConfig: input.config, callsRunning: 0 }),
  initial: 'live',
  states: {
    // The long-lived actors run through `draining`: a call that is finishing still needs them.
    live: {
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
        'pluginTab.spawn': { actions: 'spawnPluginTab' },
        'pluginTab.stop': { actions: 'stopPluginTab' },
        'toolInvocation.spawn': { actions: 'spawnInvocation' },
        'extension.lost': { actions: 'broadcastExtensionLost' },
        'catalog.changed': { actions: 'broadcastCatalogChanged' },
        'xstate.done.actor.*': { guard: 'isEndingChild', actions: ['stopEndedChild', 'countEndedCall'] },
        'xstate.error.actor.*': { guard: 'isEndingChild', actions: ['stopEndedChild', 'countEndedCall'] },
      },
      initial: 'running',
      states: {
        running: { on: { 'system.drain': 'draining' } },
        // Shutting down: calls in flight may finish within the grace period; those still running then
        // fail with shutting_down, and get one more period to record that. Each answers either way.
        draining: {
          initial: 'finishing',
          states: {
            finishing: {
              always: { guard: 'noCallRunning', target: '#bridgeSystem.live.drained' },
              after: { drainGrace: { target: 'failing', actions: 'stopCalls' } },
            },
            failing: {
              always: { guard: 'noCallRunning', target: '#bridgeSystem.live.drained' },
              after: { drainGrace: '#bridgeSystem.live.drained' },
            },
          },
        },
        /** No call runs (or the last ones would not end): the daemon closes its sockets and files. */
        drained: {},
      },
    },
    stopped: { type: 'final' },
  },
})

/**
 * Spawns a call under the root and returns its actor. A call refused at once (unknown tool, invalid
 * input, permission off) ends within the spawn, before it could be found by its systemId, and the
 * root removes it before `send` returns: its actor is taken from the root's children while the root
 * still holds it, and answers `toPromise` with its output all the same.
 */
export function spawnToolInvocation(
  root: ActorRefFrom<typeof bridgeSystemMachine>,
  input: ToolInvocationInput,
): ToolInvocationRef | undefined {
  const systemId = systemIdOf('toolInvocation', input.invocationId)
  let actor: ToolInvocationRef | undefined
  const seen = root.subscribe(({ children }) => {
    if (actor) return
    for (const [id, child] of Object.entries(children as Record<string, AnyActorRef | undefined>))
      if (id.startsWith('toolInvocation#') && isCallActor(child, systemId)) actor = child
  })
  root.send({ type: 'toolInvocation.spawn', input })
  seen.unsubscribe()
  return actor
}

/** The `toolInvocation:<uuid>` systemId belongs to a call's actor only (as in ./systemActors). */
const isCallActor = (child: AnyActorRef | undefined, systemId: string): child is ToolInvocationRef =>
  child !== undefined && 'systemId' in child && child.systemId === systemId
