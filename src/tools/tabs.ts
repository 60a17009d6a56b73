/** Tabs and navigation. */
import { Type } from '@sinclair/typebox'
import { defineBrowserTool } from './define'
import {
  PageAfterField,
  TabIdField,
  TimeoutMsField,
  WaitForLoadField,
  WebUrlField,
  TabOutput,
} from './common'

const TAB_INFO = 'Returns { tabId, windowId, url, title, active, status }.'
const PAGE_AFTER = 'Returns the loaded page as browser_snapshot does (snapshot: none: the tab as JSON).'

export const listTabs = defineBrowserTool({
  name: 'browser_list_tabs',
  core: true,
  source: 'listed',
  displayName: 'List tabs',
  annotations: { readOnlyHint: true, openWorldHint: false },
  description:
    "The open tabs of every window. Returns { tabs: [{ tabId, windowId, url, title, active, focusedWindow, status }] }. Every tool's tabId is one of these (default: the active tab); otherAgent: true lets a tool act in a tab of another agent's group.",
  narrow: 'pass urlContains',
  input: Type.Object({
    urlContains: Type.Optional(
      Type.String({ minLength: 1, maxLength: 2000, description: 'Only URLs containing this.' }),
    ),
  }),
  output: Type.Object({
    tabs: Type.Array(Type.Object({ ...TabOutput.properties, focusedWindow: Type.Boolean() })),
  }),
})

export const openTab = defineBrowserTool({
  name: 'browser_open_tab',
  core: true,
  source: 'listed',
  sink: { url: 'url' },
  displayName: 'Open tab',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  description: `Open a new tab, optionally at a URL, and wait for it to load. ${TAB_INFO}`,
  input: Type.Object({
    url: Type.Optional(WebUrlField),
    active: Type.Optional(
      Type.Boolean({ default: true, description: 'Make the new tab the active one (default true).' }),
    ),
    waitForLoad: WaitForLoadField,
  }),
  output: TabOutput,
})

export const closeTab = defineBrowserTool({
  name: 'browser_close_tab',
  core: true,
  pageText: false,
  displayName: 'Close tab',
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  description: 'Close a tab by tabId (from browser_list_tabs). Returns { closed: tabId }.',
  input: Type.Object({ tabId: Type.Integer({ minimum: 0, description: 'The tab to close.' }) }),
  output: Type.Object({ closed: Type.Integer() }),
})

export const focusTab = defineBrowserTool({
  name: 'browser_focus_tab',
  core: true,
  displayName: 'Focus tab',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  description: `Make a tab the active tab and focus its window, so later calls without tabId act on it. ${TAB_INFO}`,
  input: Type.Object({ tabId: Type.Integer({ minimum: 0, description: 'The tab to focus.' }) }),
  output: TabOutput,
})

export const navigate = defineBrowserTool({
  name: 'browser_navigate',
  core: true,
  sink: { url: 'url' },
  displayName: 'Navigate',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  description: `Load a URL in a tab and wait for it to load. ${PAGE_AFTER}`,
  input: Type.Object({
    url: WebUrlField,
    tabId: TabIdField,
    waitForLoad: WaitForLoadField,
    timeoutMs: TimeoutMsField(20_000, 120_000),
    snapshot: PageAfterField,
  }),
})

const historyInput = Type.Object({
  tabId: TabIdField,
  waitForLoad: WaitForLoadField,
  timeoutMs: TimeoutMsField(20_000, 120_000),
  snapshot: PageAfterField,
})

export const goBack = defineBrowserTool({
  name: 'browser_go_back',
  core: true,
  displayName: 'Go back',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  description: `Go back in the tab's history and wait for the load. ${PAGE_AFTER}`,
  input: historyInput,
})

export const goForward = defineBrowserTool({
  name: 'browser_go_forward',
  displayName: 'Go forward',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  description: `Go forward in the tab's history and wait for the load. ${PAGE_AFTER}`,
  input: historyInput,
})

export const reload = defineBrowserTool({
  name: 'browser_reload',
  displayName: 'Reload',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  description: `Reload the page in a tab and wait for the load. ${PAGE_AFTER}`,
  input: Type.Object({
    tabId: TabIdField,
    bypassCache: Type.Optional(
      Type.Boolean({ default: false, description: 'Ignore the HTTP cache (default false).' }),
    ),
    waitForLoad: WaitForLoadField,
    timeoutMs: TimeoutMsField(20_000, 120_000),
    snapshot: PageAfterField,
  }),
})
