/** Tab details, windows and tab groups. */
import { Type } from '@sinclair/typebox'
import { defineBrowserTool } from './define'
import { TabIdField, WebUrlField, StringEnum, OrNull } from './common'

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
/** A window as the window tools report it; tabs is a count. */
const WindowOutput = Type.Object({
  windowId: Type.Integer(),
  focused: Type.Boolean(),
  state: Type.Optional(Type.String()),
  type: Type.Optional(Type.String()),
  left: Type.Optional(Type.Integer()),
  top: Type.Optional(Type.Integer()),
  width: Type.Optional(Type.Integer()),
  height: Type.Optional(Type.Integer()),
  tabs: Type.Integer(),
})
const GroupOutput = Type.Object({
  groupId: Type.Integer(),
  title: Type.String(),
  color: Type.String(),
  collapsed: Type.Boolean(),
  windowId: Type.Integer(),
  agent: Type.Optional(Type.String()),
  tabIds: Type.Array(Type.Integer()),
})
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
  output: Type.Object({
    tabId: Type.Integer(),
    windowId: Type.Integer(),
    index: Type.Integer(),
    url: Type.String(),
    title: Type.String(),
    status: Type.Optional(Type.String()),
    active: Type.Boolean(),
    pinned: Type.Boolean(),
    audible: Type.Boolean(),
    muted: Type.Boolean(),
    incognito: Type.Boolean(),
    discarded: Type.Boolean(),
    groupId: OrNull('integer'),
    agent: Type.Optional(Type.String()),
    openerTabId: OrNull('integer'),
  }),
})

export const listWindows = defineBrowserTool({
  name: 'browser_list_windows',
  source: 'listed',
  displayName: 'List windows',
  annotations: { readOnlyHint: true, openWorldHint: false },
  description: `The browser windows. Returns { windows: [${WINDOW}] } with tabs as a count.`,
  input: Type.Object({}),
  output: Type.Object({ windows: Type.Array(WindowOutput) }),
})

export const createWindow = defineBrowserTool({
  name: 'browser_create_window',
  source: 'listed',
  sink: { url: 'url' },
  displayName: 'Create window',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  description: `Open a new window, optionally at a URL, size and position. Returns ${WINDOW} and tabId of its tab.`,
  input: Type.Object({
    url: Type.Optional(WebUrlField),
    width: Width,
    height: Height,
    focused: Focused,
  }),
  output: Type.Object({ ...WindowOutput.properties, tabId: Type.Integer() }),
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
  output: WindowOutput,
})

export const closeWindow = defineBrowserTool({
  name: 'browser_close_window',
  pageText: false,
  displayName: 'Close window',
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  description: 'Close a window and all its tabs. Returns { closed: windowId, tabs }.',
  input: Type.Object({ windowId: WindowId }),
  output: Type.Object({ closed: Type.Integer(), tabs: Type.Integer() }),
})

export const listTabGroups = defineBrowserTool({
  name: 'browser_list_tab_groups',
  displayName: 'List tab groups',
  annotations: { readOnlyHint: true, openWorldHint: false },
  description:
    'The tab groups with their tabs; agent groups are marked with the agent they belong to. Returns { groups: [{ groupId, title, color, collapsed, windowId, agent?, tabIds }] }.',
  input: Type.Object({}),
  output: Type.Object({ groups: Type.Array(GroupOutput) }),
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
  output: GroupOutput,
})

export const ungroupTabs = defineBrowserTool({
  name: 'browser_ungroup_tabs',
  displayName: 'Ungroup tabs',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  description: 'Take tabs out of their groups. Returns { ungrouped: tabIds }.',
  input: Type.Object({ tabIds: TabIds }),
  output: Type.Object({ ungrouped: Type.Array(Type.Integer()) }),
})
