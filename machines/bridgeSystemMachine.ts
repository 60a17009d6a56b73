/**
 * The root of the daemon's actor system (DESIGN.md section 5). It owns the long-lived actors, each
 * under a `systemId` (`system.get('configStore')`, `'reload'`, `'extensionConnection'`), and spawns
 * the dynamic children from the logic named here, which the daemon provides once with `.provide()`:
 * `pluginTab:<plugin>`, `mcpSession:<uuid>` and `toolInvocation:<uuid>` (their systemIds). Anyone
 * finds a child with `system.get(systemId)`; nobody reads the root's `children`.
 */
import { enqueueActions, setup, stopChild, type AnyActorRef } from 'xstate'
import { configStoreMachine, type ConfigDocument } from './configStoreMachine'
import { extensionConnectionMachine } from './extensionConnectionMachine'
import { mcpSessionMachine, type McpSessionInput } from './mcpSessionMachine'
import { pluginTabMachine } from './pluginTabMachine'
import { reloadMachine } from './reloadMachine'
import { toolInvocationMachine, type ToolInvocationInput } from './toolInvocationMachine'

/** The systemId of a spawned child: `pluginTab:<plugin>`, `mcpSession:<uuid>`, `toolInvocation:<uuid>`. */
export const systemIdOf = (kind: 'pluginTab' | 'mcpSession' | 'toolInvocation', key: string): string =>
  `${kind}:${key}`

export type BridgeSystemEvent =
  | { type: 'system.stop' }
  | { type: 'pluginTab.spawn'; plugin: string }
  | { type: 'pluginTab.stop'; plugin: string }
  | { type: 'mcpSession.spawn'; input: McpSessionInput }
  | { type: 'toolInvocation.spawn'; input: ToolInvocationInput }
  /** The extension connection went away: every plugin tab closes, every call waiting on it fails. */
  | { type: 'extension.lost' }

/** Kinds whose children end on their own (final state) and are then removed. */
const ENDING_KINDS = ['mcpSession', 'toolInvocation'] as const
type EndingKind = (typeof ENDING_KINDS)[number]

const DONE_PREFIX = 'xstate.done.actor.'
const ERROR_PREFIX = 'xstate.error.actor.'
const endedChildId = (type: string): string =>
  type.startsWith(ERROR_PREFIX) ? type.slice(ERROR_PREFIX.length) : type.slice(DONE_PREFIX.length)

/**
 * The child id of a session or a call is `<kind>#<n>`, the lowest number not in use, while its
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
    context: {} as { initialConfig: ConfigDocument },
    events: {} as BridgeSystemEvent,
  },
  actors: {
    configStore: configStoreMachine,
    reload: reloadMachine,
    extensionConnection: extensionConnectionMachine,
    pluginTab: pluginTabMachine,
    mcpSession: mcpSessionMachine,
    toolInvocation: toolInvocationMachine,
  },
  actions: {
    spawnPluginTab: enqueueActions(({ enqueue, event, system }) => {
      if (event.type !== 'pluginTab.spawn') return
      const systemId = systemIdOf('pluginTab', event.plugin)
      if (system.get(systemId)) return
      enqueue.spawnChild('pluginTab', { id: systemId, systemId, input: { plugin: event.plugin } })
    }),
    stopPluginTab: stopChild(({ event }) =>
      event.type === 'pluginTab.stop' ? systemIdOf('pluginTab', event.plugin) : '',
    ),
    spawnSession: enqueueActions(({ enqueue, event, self }) => {
      if (event.type !== 'mcpSession.spawn') return
      enqueue.spawnChild('mcpSession', {
        id: freeChildId(self.getSnapshot().children, 'mcpSession'),
        systemId: systemIdOf('mcpSession', event.input.sessionId),
        input: event.input,
      })
    }),
    spawnInvocation: enqueueActions(({ enqueue, event, self }) => {
      if (event.type !== 'toolInvocation.spawn') return
      enqueue.spawnChild('toolInvocation', {
        id: freeChildId(self.getSnapshot().children, 'toolInvocation'),
        systemId: systemIdOf('toolInvocation', event.input.invocationId),
        input: event.input,
      })
    }),
    /** Tells every plugin tab and every call that the extension is gone. */
    broadcastExtensionLost: enqueueActions(({ enqueue, self }) => {
      for (const [id, child] of Object.entries(self.getSnapshot().children as Record<string, AnyActorRef>))
        if (id.startsWith('pluginTab:') || id.startsWith('toolInvocation#'))
          enqueue.sendTo(child, { type: 'extension.lost' })
    }),
    /** A session or a call that finished or failed is removed; its owner has already seen the end. */
    stopEndedChild: stopChild(({ event }) => endedChildId(event.type)),
  },
  guards: {
    /** Only sessions and calls end this way on purpose; a long-lived actor that fails still fails the root. */
    isEndingChild: ({ event }) =>
      ENDING_KINDS.some((kind) => endedChildId(event.type).startsWith(`${kind}#`)),
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
        'pluginTab.spawn': { actions: 'spawnPluginTab' },
        'pluginTab.stop': { actions: 'stopPluginTab' },
        'mcpSession.spawn': { actions: 'spawnSession' },
        'toolInvocation.spawn': { actions: 'spawnInvocation' },
        'extension.lost': { actions: 'broadcastExtensionLost' },
        'xstate.done.actor.*': { guard: 'isEndingChild', actions: 'stopEndedChild' },
        'xstate.error.actor.*': { guard: 'isEndingChild', actions: 'stopEndedChild' },
      },
    },
    stopped: { type: 'final' },
  },
})
