import { assign, sendTo, setup, type AnyActorRef } from 'xstate'
import { chooseTab } from './tabChoice'
import {
  BROWSER_PLUGIN,
  type ApprovalTab,
  CATEGORY_BY_TOOL_ERROR,
  MAX_CALLS_IN_FLIGHT_PER_PLUGIN,
  type TabInfo,
  type TabStateName,
  type ToolErrorCode,
} from '../src/protocol'

export interface PluginTabContext {
  plugin: string
  tabs: TabInfo[]
  /** Calls granted a slot and not finished yet. */
  inFlight: number
}

/** Why a call may not run in this plugin's tabs now, as the client and the audit log see it. */
export interface SlotRefusal {
  code: ToolErrorCode
  message: string
  category?: string
}

/** The answer to `slot.request`, sent to its `replyTo`. */
export type SlotAnswer = { type: 'slot.granted' } | { type: 'slot.refused'; error: SlotRefusal }

/** The answer to `tab.choose`: the tab an approved call will run in (none for built-ins), or why none. */
export type TabAnswer =
  { type: 'tab.chosen'; tab?: ApprovalTab } | { type: 'tab.refused'; error: SlotRefusal }

export type PluginTabEvent =
  /** From tab.syncAll / tab.stateChanged. */
  | { type: 'tabs.update'; state: TabStateName; tabs: TabInfo[] }
  | { type: 'extension.lost' }
  /** A call asks to run: answered with `slot.granted` (a slot is now held) or `slot.refused`. */
  | { type: 'slot.request'; replyTo: AnyActorRef }
  /** A call that was granted a slot has finished. */
  | { type: 'slot.release' }
  /** A call about to ask the user: which tab will it run in? Answered with `tab.chosen` or `tab.refused`. */
  | { type: 'tab.choose'; replyTo: AnyActorRef }

const refusal = (code: ToolErrorCode, message: string): SlotRefusal => ({
  code,
  message,
  ...(CATEGORY_BY_TOOL_ERROR[code] ? { category: CATEGORY_BY_TOOL_ERROR[code] } : {}),
})

/** Why a call may not run: the one wording, for calls with and without a pluginTab actor. */
export const REFUSALS = {
  closed: (plugin: string) =>
    refusal('tab_closed', `no open tab matches the ${plugin} plugin; open the site first`),
  unavailable: (plugin: string) =>
    refusal('tab_unavailable', `the ${plugin} tab is not ready: sign in to the site, or reload its tab`),
  busy: (plugin: string) =>
    refusal(
      'plugin_busy',
      `${plugin} already runs ${MAX_CALLS_IN_FLIGHT_PER_PLUGIN} calls; wait for in-flight calls to finish`,
    ),
}

function tabAnswer(context: PluginTabContext): TabAnswer {
  if (context.plugin === BROWSER_PLUGIN) return { type: 'tab.chosen' }
  const chosen = chooseTab(context.tabs)
  if (chosen)
    return { type: 'tab.chosen', tab: { tabId: chosen.tabId, title: chosen.title, url: chosen.url } }
  const why = context.tabs.length === 0 ? 'closed' : 'unavailable'
  return { type: 'tab.refused', error: REFUSALS[why](context.plugin) }
}

/** Where a request (`slot.request`, `tab.choose`) is answered. */
interface Reply {
  replyTo: AnyActorRef
}
const replyTo = ({ event }: { event: { replyTo: AnyActorRef } }): Reply => ({ replyTo: event.replyTo })
const refuse = (why: keyof typeof REFUSALS) => ({
  type: 'answer' as const,
  params: ({ event }: { event: { replyTo: AnyActorRef } }) => ({ replyTo: event.replyTo, refuse: why }),
})

/** A slot for a call whose tab may run it (built-in calls need none): while fewer than 5 calls run. */
const SLOT = [
  { guard: 'isFull', actions: refuse('busy') },
  { actions: ['takeSlot', { type: 'answer', params: replyTo }] },
] as const

/**
 * One plugin's tabs as the extension reports them: closed / unavailable / ready. Goes to closed when
 * the extension disconnects. It also decides whether a call may run now: `slot.request` is answered
 * with `slot.refused` while no tab is ready or at the limit of 5 calls in flight, else `slot.granted`
 * (the slot is held until `slot.release`). Before a call asks the user, `tab.choose` names the ready
 * tab it will run in (the extension's best-ranked one). The built-in `browser` pseudo-plugin has no
 * tabs of its own: only its slots count. Whether a plugin has a ready tab is decided here only.
 */
export const pluginTabMachine = setup({
  types: {
    context: {} as PluginTabContext,
    input: {} as { plugin: string },
    events: {} as PluginTabEvent,
  },
  actions: {
    answer: sendTo(
      (_, params: Reply & { refuse?: keyof typeof REFUSALS }) => params.replyTo,
      ({ context }, params): SlotAnswer =>
        params.refuse
          ? { type: 'slot.refused', error: REFUSALS[params.refuse](context.plugin) }
          : { type: 'slot.granted' },
    ),
    answerTabChoice: sendTo(
      (_, params: Reply) => params.replyTo,
      ({ context }) => tabAnswer(context),
    ),
    takeSlot: assign({ inFlight: ({ context }) => context.inFlight + 1 }),
  },
  guards: {
    isState: ({ event }, params: { state: TabStateName }) =>
      event.type === 'tabs.update' && event.state === params.state,
    isFull: ({ context }) => context.inFlight >= MAX_CALLS_IN_FLIGHT_PER_PLUGIN,
    hasTabs: ({ context }) => context.plugin !== BROWSER_PLUGIN,
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
    'tab.choose': { actions: { type: 'answerTabChoice', params: replyTo } },
    'slot.release': { actions: assign({ inFlight: ({ context }) => Math.max(0, context.inFlight - 1) }) },
  },
  // The order a user would check: is a tab open, is it ready, is there room for one more call.
  states: {
    closed: {
      on: {
        'slot.request': [{ guard: 'hasTabs', actions: refuse('closed') }, ...SLOT],
      },
    },
    unavailable: {
      on: {
        'slot.request': [{ guard: 'hasTabs', actions: refuse('unavailable') }, ...SLOT],
      },
    },
    ready: { on: { 'slot.request': [...SLOT] } },
  },
})
