/** Acting on a page: trusted clicks, typing and keys through the Chrome debugger, form controls, scrolling. */
import { Type } from '@sinclair/typebox'
import { defineBrowserTool } from './define'
import { RefField, SelectorField, SnapshotModeField, TabIdField, StringEnum } from './common'

const TRUSTED = 'Trusted input (Chrome debugger).'
const SETTLES =
  'Waits for the page to settle, then returns what changed (snapshot lines), a new page, or a dialog.'

const Modifiers = Type.Optional(
  Type.Array(StringEnum(['Alt', 'Control', 'Meta', 'Shift']), {
    uniqueItems: true,
    maxItems: 4,
    description: 'Keys held.',
  }),
)

export const click = defineBrowserTool({
  name: 'browser_click',
  core: true,
  displayName: 'Click',
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  description: `Click an element. ${TRUSTED} ${SETTLES}`,
  input: Type.Object({
    tabId: TabIdField,
    ref: RefField,
    selector: SelectorField,
    button: Type.Optional(
      StringEnum(['left', 'right', 'middle'], { default: 'left', description: 'Button.' }),
    ),
    doubleClick: Type.Optional(Type.Boolean({ default: false, description: 'Click twice.' })),
    modifiers: Modifiers,
    snapshot: SnapshotModeField,
  }),
})

export const hover = defineBrowserTool({
  name: 'browser_hover',
  core: true,
  displayName: 'Hover',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  description: `Move the mouse over an element, e.g. to open a menu. ${TRUSTED} Returns { hovered }.`,
  input: Type.Object({ tabId: TabIdField, ref: RefField, selector: SelectorField }),
  output: Type.Object({ hovered: Type.String() }),
})

export const type = defineBrowserTool({
  name: 'browser_type',
  core: true,
  sink: { page: true },
  displayName: 'Type text',
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  description: `Focus an editable element, optionally clear it, and type text. ${TRUSTED} ${SETTLES} Says so when the field does not hold the text.`,
  input: Type.Object({
    tabId: TabIdField,
    ref: RefField,
    selector: SelectorField,
    text: Type.String({ maxLength: 20_000, description: 'Text to type.' }),
    clear: Type.Optional(Type.Boolean({ default: true, description: 'Replace the content; false appends.' })),
    submit: Type.Optional(Type.Boolean({ default: false, description: 'Press Enter after.' })),
    snapshot: SnapshotModeField,
  }),
})

export const pressKey = defineBrowserTool({
  name: 'browser_press_key',
  core: true,
  displayName: 'Press key',
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  description: `Press a key or combination in the focused element, or in ref/selector. ${TRUSTED} ${SETTLES} Names the focused element.`,
  input: Type.Object({
    tabId: TabIdField,
    key: Type.String({
      minLength: 1,
      maxLength: 60,
      pattern: '^((Alt|Control|Meta|Shift)\\+)*([^+]+|\\+)$',
      description: 'DOM key name, with modifiers joined by +: Enter, ArrowDown, a, Control+a, Shift+Tab.',
    }),
    ref: RefField,
    selector: SelectorField,
    snapshot: SnapshotModeField,
  }),
})

export const selectOption = defineBrowserTool({
  name: 'browser_select_option',
  core: true,
  sink: { page: true },
  displayName: 'Select option',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  description: `Choose options of a <select> by value or label, firing input and change. Several only for multiple selects. ${SETTLES}`,
  input: Type.Object({
    tabId: TabIdField,
    ref: RefField,
    selector: SelectorField,
    values: Type.Array(Type.String({ maxLength: 1000 }), {
      minItems: 1,
      maxItems: 100,
      description: 'Values or labels.',
    }),
    snapshot: SnapshotModeField,
  }),
})

export const scroll = defineBrowserTool({
  name: 'browser_scroll',
  core: true,
  displayName: 'Scroll',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  description:
    'Scroll an element (ref or selector) into view, or scroll the page (or the given element when direction is set) by an amount in a direction. Returns { scrollX, scrollY, atTop, atBottom } of the page afterwards.',
  input: Type.Object({
    tabId: TabIdField,
    ref: RefField,
    selector: SelectorField,
    direction: Type.Optional(
      StringEnum(['up', 'down', 'left', 'right'], {
        description: 'Scroll by an amount in this direction instead of bringing the element into view.',
      }),
    ),
    amount: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 100_000,
        description: 'Pixels to scroll with direction (default: 80% of the viewport).',
      }),
    ),
  }),
  output: Type.Object({
    scrollX: Type.Integer(),
    scrollY: Type.Integer(),
    atTop: Type.Boolean(),
    atBottom: Type.Boolean(),
  }),
})
