/**
 * Each MCP client's tabs live in a tab group of its own: per client name when the daemon knows it,
 * else per MCP session. Tabs an agent opens join its group; a tool refuses a tab in another agent's
 * group unless the call sets `otherAgent: true`. Which groups belong to which agent is kept in
 * session storage, so it survives service-worker restarts but not the browser.
 */
import type { BuiltinContext } from './context'
import { invalid } from './errors'

const STORAGE_KEY = 'bridge.agentGroups'
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

async function load(): Promise<Record<string, string>> {
  const stored = (await chrome.storage.session.get(STORAGE_KEY))[STORAGE_KEY] as
    Record<string, string> | undefined
  return stored ?? {}
}

async function save(groups: Record<string, string>): Promise<void> {
  await chrome.storage.session.set({ [STORAGE_KEY]: groups })
}

/** groupId -> agent, for the groups bridge made. */
export async function agentGroups(): Promise<Record<string, string>> {
  return load()
}

/** The other agent whose group holds the tab, if any (undefined for the caller's own or unowned tabs). */
export async function otherOwner(tab: chrome.tabs.Tab, ctx: BuiltinContext): Promise<string | undefined> {
  if (tab.groupId === undefined || tab.groupId < 0) return undefined
  const owner = (await load())[String(tab.groupId)]
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

let queue: Promise<unknown> = Promise.resolve()

/** Puts a tab the agent opened into the agent's group in that window, creating the group once. */
export function adoptTab(tabId: number, ctx: BuiltinContext): Promise<number | undefined> {
  const agent = agentOf(ctx)
  if (agent === undefined) return Promise.resolve(undefined)
  // One at a time: two tabs opened together must not create two groups.
  const run = queue.then(async () => {
    const tab = await chrome.tabs.get(tabId)
    const groups = await load()
    for (const [id, owner] of Object.entries(groups)) {
      if (owner !== agent) continue
      const group = await chrome.tabGroups.get(Number(id)).catch(() => undefined)
      if (!group) {
        delete groups[id]
        continue
      }
      if (group.windowId !== tab.windowId) continue
      await chrome.tabs.group({ groupId: group.id, tabIds: [tabId] })
      await save(groups)
      return group.id
    }
    const groupId = await chrome.tabs.group({ tabIds: [tabId], createProperties: { windowId: tab.windowId } })
    const used = new Set(Object.values(groups))
    await chrome.tabGroups.update(groupId, { title: agent, color: COLORS[used.size % COLORS.length]! })
    groups[String(groupId)] = agent
    await save(groups)
    return groupId
  })
  queue = run.catch(() => undefined)
  return run
}

chrome.tabGroups.onRemoved.addListener((group) => {
  void load().then(async (groups) => {
    if (!(String(group.id) in groups)) return
    delete groups[String(group.id)]
    await save(groups)
  })
})
