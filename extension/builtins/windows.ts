/** Handlers of src/tools/windows.ts: tab details, windows and tab groups. */
import type { windows as defs, BrowserToolInput } from '../../src/tools'
import { adoptTab, agentGroups } from './agentGroups'
import type { BuiltinContext, Handlers } from './context'
import { invalid, notFound } from './errors'
import { resolveTab, tabIdOf, waitForLoad } from './tabLookup'

type In<K extends keyof typeof defs> = BrowserToolInput<(typeof defs)[K]>

const windowView = (w: chrome.windows.Window) => ({
  windowId: w.id ?? chrome.windows.WINDOW_ID_NONE,
  focused: w.focused,
  state: w.state,
  type: w.type,
  left: w.left,
  top: w.top,
  width: w.width,
  height: w.height,
  tabs: w.tabs?.length ?? 0,
})

async function getWindow(windowId: number): Promise<chrome.windows.Window> {
  try {
    return await chrome.windows.get(windowId, { populate: true })
  } catch {
    throw notFound(`no window with id ${windowId}: see browser_list_windows`)
  }
}

async function tabInfo(input: In<'tabInfo'>) {
  const tab = await resolveTab(input.tabId)
  const owner = tab.groupId >= 0 ? (await agentGroups())[String(tab.groupId)] : undefined
  return {
    tabId: tabIdOf(tab),
    windowId: tab.windowId,
    index: tab.index,
    url: tab.url ?? tab.pendingUrl ?? '',
    title: tab.title ?? '',
    status: tab.status,
    active: tab.active,
    pinned: tab.pinned,
    audible: tab.audible ?? false,
    muted: tab.mutedInfo?.muted ?? false,
    incognito: tab.incognito,
    discarded: tab.discarded,
    groupId: tab.groupId >= 0 ? tab.groupId : null,
    ...(owner ? { agent: owner } : {}),
    openerTabId: tab.openerTabId ?? null,
  }
}

async function listWindows(_input: In<'listWindows'>) {
  const windows = await chrome.windows.getAll({ populate: true })
  return { windows: windows.map(windowView) }
}

async function createWindow(input: In<'createWindow'>, ctx: BuiltinContext) {
  if (input.url !== undefined && !/^(https?:\/\/\S+|about:blank)$/i.test(input.url))
    throw invalid('only http(s) URLs and about:blank can be opened')
  const win = await chrome.windows.create({
    url: input.url ?? 'about:blank',
    focused: input.focused ?? true,
    ...(input.width !== undefined ? { width: input.width } : {}),
    ...(input.height !== undefined ? { height: input.height } : {}),
  })
  const tabId = win?.tabs?.[0]?.id
  if (!win?.id || tabId === undefined) throw notFound('Chrome did not open the window')
  if (input.url && input.url !== 'about:blank') await waitForLoad(tabId, 20_000).catch(() => undefined)
  await adoptTab(tabId, ctx)
  // Some window managers, and automation attaching to the new page, resize it after creation: set the
  // size again until it holds (a few tries, a moment apart).
  const size = {
    ...(input.width !== undefined ? { width: input.width } : {}),
    ...(input.height !== undefined ? { height: input.height } : {}),
  }
  let current = await getWindow(win.id)
  for (let attempt = 0; attempt < 5 && !hasSize(current, size); attempt++) {
    await chrome.windows.update(win.id, size)
    await new Promise((resolve) => setTimeout(resolve, 100 * attempt))
    current = await getWindow(win.id)
  }
  return { ...windowView(current), tabId }
}

const hasSize = (win: chrome.windows.Window, size: { width?: number; height?: number }): boolean =>
  (size.width === undefined || win.width === size.width) &&
  (size.height === undefined || win.height === size.height)

async function updateWindow(input: In<'updateWindow'>) {
  await getWindow(input.windowId)
  const { windowId, ...rest } = input
  const sized = [rest.width, rest.height, rest.left, rest.top].some((v) => v !== undefined)
  if (sized && rest.state !== undefined && rest.state !== 'normal')
    throw invalid(`a ${rest.state} window has no size of its own: give state or a size`)
  const update = Object.fromEntries(
    Object.entries({ ...rest, state: rest.state ?? (sized ? 'normal' : undefined) }).filter(
      ([, v]) => v !== undefined,
    ),
  ) as chrome.windows.UpdateInfo
  await chrome.windows.update(windowId, update)
  return windowView(await getWindow(windowId))
}

async function closeWindow(input: In<'closeWindow'>) {
  const win = await getWindow(input.windowId)
  await chrome.windows.remove(input.windowId)
  return { closed: input.windowId, tabs: win.tabs?.length ?? 0 }
}

async function groupView(groupId: number, owners?: Record<string, string>) {
  const group = await chrome.tabGroups.get(groupId)
  const tabs = await chrome.tabs.query({ groupId })
  const owner = (owners ?? (await agentGroups()))[String(groupId)]
  return {
    groupId,
    title: group.title ?? '',
    color: group.color,
    collapsed: group.collapsed,
    windowId: group.windowId,
    ...(owner ? { agent: owner } : {}),
    tabIds: tabs.flatMap((t) => (t.id === undefined ? [] : [t.id])),
  }
}

async function listTabGroups(_input: In<'listTabGroups'>) {
  const owners = await agentGroups()
  const groups = await chrome.tabGroups.query({})
  return { groups: await Promise.all(groups.map((g) => groupView(g.id, owners))) }
}

async function groupTabs(input: In<'groupTabs'>) {
  if (!input.tabIds?.length && input.groupId === undefined) throw invalid('give tabIds, groupId or both')
  for (const id of input.tabIds ?? [])
    await chrome.tabs.get(id).catch(() => {
      throw notFound(`no tab with id ${id}`)
    })
  let groupId = input.groupId
  const [first, ...others] = input.tabIds ?? []
  if (first !== undefined)
    groupId = await chrome.tabs.group({
      tabIds: [first, ...others],
      ...(groupId !== undefined ? { groupId } : {}),
    })
  else
    await chrome.tabGroups.get(groupId!).catch(() => {
      throw notFound(`no tab group with id ${groupId}`)
    })
  const update: chrome.tabGroups.UpdateProperties = {}
  if (input.title !== undefined) update.title = input.title
  if (input.color !== undefined) update.color = input.color
  if (input.collapsed !== undefined) update.collapsed = input.collapsed
  if (Object.keys(update).length) await chrome.tabGroups.update(groupId!, update)
  return groupView(groupId!)
}

async function ungroupTabs(input: In<'ungroupTabs'>) {
  const [first, ...others] = input.tabIds
  if (first !== undefined) await chrome.tabs.ungroup([first, ...others])
  return { ungrouped: input.tabIds }
}

export const windowsHandlers: Handlers<typeof defs> = {
  tabInfo,
  listWindows,
  createWindow,
  updateWindow,
  closeWindow,
  listTabGroups,
  groupTabs,
  ungroupTabs,
}
