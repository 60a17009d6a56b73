/** Tab details, windows and tab groups. */
import { Type } from '@sinclair/typebox'
import { defineBrowserTool } from './define'
import { TabIdField, WebUrlField, StringEnum } from './common'

const WindowId = Type.Integer({ minimum: 0, description: 'From browser_list_windows.' })
const Width = Type.Optional(Type.Integer({ minimum: 200, maximum: 10_000, description: 'Pixels.' }))
const Height = Type.Optional(Type.Integer({ minimum: 200, maximum: 10_000, description: 'Pixels.' }))
const Left = Type.Optional(Type.Integer({ minimum: -10_000, maximum: 10_000, description: 'Screen x.' }))
const Top = Type.Optional(Type.Integer({ minimum: -10_000, maximum: 10_000, description: 'Screen y.' }))
const Focused = Type.Optional(Type.Boolean({ description: 'Focus the window.' }))
const WindowState = Type.Optional(
  StringEnum(['normal', 'maximized', 'minimized', 'fullscreen'], { description: 'Window state.' }),
)
const TabIds = Type.Array(Type.Integer({ minimum: 0 }), {
  minItems: 1,
  maxItems: 100,
  description: 'Tab ids.',
})
const WINDOW = '{ windowId, focused, state, type, left, top, width, height, tabs }'
const GroupColor = Type.Optional(
  StringEnum(['grey', 'blue', 'red', 'yellow', 'green', 'pink', 'purple', 'cyan', 'orange'], {
    description: 'Group colour.',
  }),
)

export const tabInfo = defineBrowserTool({
  name: 'browser_tab_info',
  displayName: 'Tab info',
  annotations: { readOnlyHint: true, openWorldHint: false },
  description:
    'Details of one tab: URL, title, status, window, group, opener, audible, muted, pinned, incognito. Returns one object.',
  input: Type.Object({ tabId: TabIdField }),
})

export const listWindows = defineBrowserTool({
  name: 'browser_list_windows',
  displayName: 'List windows',
  annotations: { readOnlyHint: true, openWorldHint: false },
  description: `The browser windows. Returns { windows: [${WINDOW}] } with tabs as a count.`,
  input: Type.Object({}),
})

export const createWindow = defineBrowserTool({
  name: 'browser_create_window',
  displayName: 'Create window',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  description: `Open a new window, optionally at a URL, size and position. Returns ${WINDOW} and tabId of its tab.`,
  input: Type.Object({
    url: Type.Optional(WebUrlField),
    width: Width,
    height: Height,
    focused: Focused,
  }),
})

export const updateWindow = defineBrowserTool({
  name: 'browser_update_window',
  displayName: 'Update window',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  description: `Focus, move, resize or change the state of a window. Returns ${WINDOW}.`,
  input: Type.Object({
    windowId: WindowId,
    focused: Focused,
    width: Width,
    height: Height,
    left: Left,
    top: Top,
    state: WindowState,
  }),
})

export const closeWindow = defineBrowserTool({
  name: 'browser_close_window',
  displayName: 'Close window',
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  description: 'Close a window and all its tabs. Returns { closed: windowId, tabs }.',
  input: Type.Object({ windowId: WindowId }),
})

export const listTabGroups = defineBrowserTool({
  name: 'browser_list_tab_groups',
  displayName: 'List tab groups',
  annotations: { readOnlyHint: true, openWorldHint: false },
  description:
    'The tab groups with their tabs; agent groups are marked with the agent they belong to. Returns { groups: [{ groupId, title, color, collapsed, windowId, agent?, tabIds }] }.',
  input: Type.Object({}),
})

export const groupTabs = defineBrowserTool({
  name: 'browser_group_tabs',
  displayName: 'Group tabs',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  description:
    'Put tabs into a new group (title, colour) or into an existing one (groupId); can also rename, recolour or collapse the group. Returns { groupId, title, color, collapsed, tabIds }.',
  input: Type.Object({
    tabIds: Type.Optional(TabIds),
    groupId: Type.Optional(Type.Integer({ minimum: 0, description: 'An existing group.' })),
    title: Type.Optional(Type.String({ maxLength: 100, description: 'Group title.' })),
    color: GroupColor,
    collapsed: Type.Optional(Type.Boolean({ description: 'Collapse the group.' })),
  }),
})

export const ungroupTabs = defineBrowserTool({
  name: 'browser_ungroup_tabs',
  displayName: 'Ungroup tabs',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  description: 'Take tabs out of their groups. Returns { ungrouped: tabIds }.',
  input: Type.Object({ tabIds: TabIds }),
})
