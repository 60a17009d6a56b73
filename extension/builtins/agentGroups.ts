/**
 * Each MCP client's tabs live in a tab group of its own: per client name when the daemon knows it,
 * else per MCP session. Tabs an agent opens join its group; a tool refuses a tab in another agent's
 * group unless the call sets `otherAgent: true`. Which groups belong to which agent is kept in
 * session storage, so it survives service-worker restarts but not the browser.
 */
import type { BuiltinContext } from './context'
import { SessionRecord } from '../lib/sessionStorage'
import { invalid } from './errors'

/** groupId -> agent, for the groups bridge made. */
const groups = new SessionRecord<Record<string, string>>('bridge.agentGroups', () => ({}))
const COLORS: `${chrome.tabGroups.Color}`[] = [
  'blue',
  'purple',
  'cyan',
  'orange',
  'pink',
  'green',
  'yellow',
  'red',
]

/** The agent a call comes from, as shown in its group's title; undefined when the daemon did not say. */
export function agentOf(ctx: Pick<BuiltinContext, 'client' | 'session'>): string | undefined {
  if (ctx.client) return ctx.client
  if (ctx.session) return `agent ${ctx.session.slice(0, 8)}`
  return undefined
}

/** groupId -> agent, for the groups bridge made. */
export function agentGroups(): Promise<Record<string, string>> {
  return groups.read()
}

/** The other agent whose group holds the tab, if any (undefined for the caller's own or unowned tabs). */
export async function otherOwner(tab: chrome.tabs.Tab, ctx: BuiltinContext): Promise<string | undefined> {
  if (tab.groupId === undefined || tab.groupId < 0) return undefined
  const owner = (await groups.read())[String(tab.groupId)]
  const me = agentOf(ctx)
  return owner === undefined || me === undefined || owner === me ? undefined : owner
}

/** Refuses a tab that sits in another agent's group, unless the call said so explicitly. */
export async function assertMayAct(
  tab: chrome.tabs.Tab,
  ctx: BuiltinContext,
  otherAgent: boolean,
): Promise<void> {
  if (otherAgent) return
  const owner = await otherOwner(tab, ctx)
  if (owner === undefined) return
  throw invalid(
    `tab ${tab.id} is in the tab group of ${JSON.stringify(owner)}, another agent: use your own tabs (browser_open_tab), or pass otherAgent: true if the user asked you to act there`,
  )
}

/** Puts a tab the agent opened into the agent's group in that window, creating the group once. */
export function adoptTab(tabId: number, ctx: BuiltinContext): Promise<number | undefined> {
  const agent = agentOf(ctx)
  if (agent === undefined) return Promise.resolve(undefined)
  // One change of the record at a time: two tabs opened together must not create two groups.
  return groups.update(async (owned) => {
    const tab = await chrome.tabs.get(tabId)
    for (const [id, owner] of Object.entries(owned)) {
      if (owner !== agent) continue
      const group = await chrome.tabGroups.get(Number(id)).catch(() => undefined)
      if (!group) {
        delete owned[id]
        continue
      }
      if (group.windowId !== tab.windowId) continue
      await chrome.tabs.group({ groupId: group.id, tabIds: [tabId] })
      return group.id
    }
    const groupId = await chrome.tabs.group({ tabIds: [tabId], createProperties: { windowId: tab.windowId } })
    const used = new Set(Object.values(owned))
    await chrome.tabGroups.update(groupId, { title: agent, color: COLORS[used.size % COLORS.length]! })
    owned[String(groupId)] = agent
    return groupId
  })
}

chrome.tabGroups.onRemoved.addListener((group) => {
  void groups.update((owned) => void delete owned[String(group.id)]).catch(() => undefined)
})
