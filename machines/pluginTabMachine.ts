import { assign, setup } from 'xstate'
import { MAX_CALLS_IN_FLIGHT_PER_PLUGIN, type TabInfo, type TabStateName } from '../src/protocol'

export interface PluginTabContext {
  plugin: string
  tabs: TabInfo[]
  /** Calls dispatched to this plugin and not finished yet. */
  inFlight: number
}

export type PluginTabEvent =
  /** From tab.syncAll / tab.stateChanged. */
  | { type: 'tabs.update'; state: TabStateName; tabs: TabInfo[] }
  | { type: 'extension.lost' }
  | { type: 'slot.acquire' }
  | { type: 'slot.release' }

/**
 * One plugin's tabs as the extension reports them: closed / unavailable / ready. Goes to closed when
 * the extension disconnects. Also counts the plugin's in-flight calls: `slot.acquire` is refused
 * (no change) at the limit of 5.
 */
export const pluginTabMachine = setup({
  types: {
    context: {} as PluginTabContext,
    input: {} as { plugin: string },
    events: {} as PluginTabEvent,
  },
  guards: {
    isState: ({ event }, params: { state: TabStateName }) =>
      event.type === 'tabs.update' && event.state === params.state,
    hasFreeSlot: ({ context }) => context.inFlight < MAX_CALLS_IN_FLIGHT_PER_PLUGIN,
  },
}).createMachine({
  id: 'pluginTab',
  context: ({ input }) => ({ plugin: input.plugin, tabs: [], inFlight: 0 }),
  initial: 'closed',
  on: {
    'tabs.update': [
      {
        guard: { type: 'isState', params: { state: 'ready' } },
        target: '.ready',
        actions: assign({ tabs: ({ event }) => event.tabs }),
      },
      {
        guard: { type: 'isState', params: { state: 'unavailable' } },
        target: '.unavailable',
        actions: assign({ tabs: ({ event }) => event.tabs }),
      },
      { target: '.closed', actions: assign({ tabs: () => [] }) },
    ],
    'extension.lost': { target: '.closed', actions: assign({ tabs: () => [] }) },
    'slot.acquire': {
      guard: 'hasFreeSlot',
      actions: assign({ inFlight: ({ context }) => context.inFlight + 1 }),
    },
    'slot.release': { actions: assign({ inFlight: ({ context }) => Math.max(0, context.inFlight - 1) }) },
  },
  states: {
    closed: {},
    unavailable: {},
    ready: {},
  },
})
