/** Acting on a page: trusted clicks, typing and keys through the Chrome debugger, form controls, scrolling. */
import { Type } from '@sinclair/typebox'
import { defineBrowserTool } from './define'
import { RefField, SelectorField, TabIdField } from './common'

const TRUSTED =
  'Input is delivered as real user input through the Chrome debugger (Chrome shows a "debugging this browser" bar meanwhile).'

const Modifiers = Type.Optional(
  Type.Array(
    Type.Union([Type.Literal('Alt'), Type.Literal('Control'), Type.Literal('Meta'), Type.Literal('Shift')]),
    {
      uniqueItems: true,
      maxItems: 4,
      description: 'Modifier keys held during the click.',
    },
  ),
)

export const click = defineBrowserTool({
  name: 'browser_click',
  displayName: 'Click',
  description: `Scroll an element (ref from browser_snapshot, or CSS selector) into view and click its center. ${TRUSTED} Returns { clicked: "<role> <name>", url, openedTabs? } with the URL after the click (waiting for a navigation it started) and any tabs it opened; fails with not_found when the element is gone, and with validation naming the element that covers the target.`,
  input: Type.Object({
    tabId: TabIdField,
    ref: RefField,
    selector: SelectorField,
    button: Type.Optional(
      Type.Union([Type.Literal('left'), Type.Literal('right'), Type.Literal('middle')], {
        default: 'left',
        description: 'Mouse button (default left).',
      }),
    ),
    doubleClick: Type.Optional(
      Type.Boolean({ default: false, description: 'Double-click instead of a single click.' }),
    ),
    modifiers: Modifiers,
  }),
})

export const hover = defineBrowserTool({
  name: 'browser_hover',
  displayName: 'Hover',
  description: `Move the mouse over an element (ref or selector), e.g. to open a menu or show a tooltip. ${TRUSTED} Returns { hovered: "<role> <name>" }.`,
  input: Type.Object({ tabId: TabIdField, ref: RefField, selector: SelectorField }),
})

export const type = defineBrowserTool({
  name: 'browser_type',
  displayName: 'Type text',
  description: `Focus an editable element (input, textarea, contenteditable; ref or selector), optionally clear it, and type text as the user would. ${TRUSTED} Returns { typed, value } with the field's value afterwards (value null and hidden: true for password fields), or { typed, submitted: true, url } with submit.`,
  input: Type.Object({
    tabId: TabIdField,
    ref: RefField,
    selector: SelectorField,
    text: Type.String({ maxLength: 20_000, description: 'The text to type.' }),
    clear: Type.Optional(
      Type.Boolean({
        default: true,
        description: 'Replace the current content (default true) instead of appending.',
      }),
    ),
    submit: Type.Optional(
      Type.Boolean({ default: false, description: 'Press Enter after typing (default false).' }),
    ),
  }),
})

export const pressKey = defineBrowserTool({
  name: 'browser_press_key',
  displayName: 'Press key',
  description: `Press a key or key combination in the focused element, or in an element given by ref or selector (focused first). Keys use DOM names: "Enter", "Tab", "Escape", "Backspace", "ArrowDown", "PageDown", "a", "Control+a", "Shift+Tab". ${TRUSTED} Returns { pressed, focused, url } where focused describes the element that has focus afterwards.`,
  input: Type.Object({
    tabId: TabIdField,
    key: Type.String({
      minLength: 1,
      maxLength: 60,
      pattern: '^((Alt|Control|Meta|Shift)\\+)*([^+]+|\\+)$',
      description: 'Key name, optionally with modifiers joined by "+".',
    }),
    ref: RefField,
    selector: SelectorField,
  }),
})

export const selectOption = defineBrowserTool({
  name: 'browser_select_option',
  displayName: 'Select option',
  description:
    'Choose options in a <select> element (ref or selector) by option value or visible label, firing input and change events like a user would. Several values only for multiple selects. Returns { selected: [{ value, label }] }; fails with not_found naming the available options when a value matches none.',
  input: Type.Object({
    tabId: TabIdField,
    ref: RefField,
    selector: SelectorField,
    values: Type.Array(Type.String({ maxLength: 1000 }), {
      minItems: 1,
      maxItems: 100,
      description: 'Option values or labels to select.',
    }),
  }),
})

export const scroll = defineBrowserTool({
  name: 'browser_scroll',
  displayName: 'Scroll',
  description:
    'Scroll an element (ref or selector) into view, or scroll the page (or the given element when direction is set) by an amount in a direction. Returns { scrollX, scrollY, atTop, atBottom } of the page afterwards.',
  input: Type.Object({
    tabId: TabIdField,
    ref: RefField,
    selector: SelectorField,
    direction: Type.Optional(
      Type.Union([Type.Literal('up'), Type.Literal('down'), Type.Literal('left'), Type.Literal('right')], {
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
})
