/** Forms and keyboard: several fields at once, checkboxes, files, drag and drop, raw text and keys. */
import { Type } from '@sinclair/typebox'
import { defineBrowserTool } from './define'
import { RefField, SelectorField, SnapshotModeField, TabIdField, OrNull, readPaths } from './common'

const Key = Type.String({
  minLength: 1,
  maxLength: 30,
  description: 'DOM key name: "Shift", "a", "Enter", "ArrowDown"...',
})

const FileBytes = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 255, pattern: '^[^/\\\\]+$' }),
  mimeType: Type.Optional(Type.String({ maxLength: 200, description: 'MIME type.' })),
  base64: Type.String({ maxLength: 7_100_000, description: 'The bytes.' }),
})

const FilePaths = Type.Optional(
  Type.Array(Type.String({ minLength: 1, maxLength: 4096 }), {
    maxItems: 20,
    description: 'In an allowed folder: absolute or relative to it.',
  }),
)

export const fillForm = defineBrowserTool({
  name: 'browser_fill_form',
  core: true,
  sink: { page: true },
  displayName: 'Fill form',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  description:
    'Set several fields at once: text, textarea, select (value or label), checkbox and radio (true/false), slider. Fires input and change. Returns only what failed or did not stick, then what else changed on the page (as browser_click).',
  input: Type.Object({
    tabId: TabIdField,
    fields: Type.Array(
      Type.Object({
        ref: RefField,
        selector: SelectorField,
        value: Type.Union([Type.String({ maxLength: 20_000 }), Type.Boolean(), Type.Number()]),
      }),
      { minItems: 1, maxItems: 100, description: 'Fields and values.' },
    ),
    snapshot: SnapshotModeField,
  }),
})

export const setChecked = defineBrowserTool({
  name: 'browser_set_checked',
  displayName: 'Set checkbox',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  description:
    'Check or uncheck a checkbox, or select a radio button, with a trusted click when its state differs. Returns { field, checked }.',
  input: Type.Object({
    tabId: TabIdField,
    ref: RefField,
    selector: SelectorField,
    checked: Type.Boolean({ description: 'The state wanted.' }),
  }),
  output: Type.Object({ field: Type.String(), checked: Type.Boolean() }),
})

export const uploadFile = defineBrowserTool({
  name: 'browser_upload_file',
  core: true,
  sink: { page: true },
  displayName: 'Upload file',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  description:
    'Give files (bytes and/or paths, 5 MB in all) to a file input, or to the element that opens a file chooser. Returns { field, files: [{ name, size }] }.',
  input: Type.Object({
    tabId: TabIdField,
    ref: RefField,
    selector: SelectorField,
    files: Type.Optional(Type.Array(FileBytes, { maxItems: 20, description: 'Files as bytes.' })),
    paths: FilePaths,
  }),
  output: Type.Object({
    field: Type.String(),
    files: Type.Array(Type.Object({ name: Type.String(), size: Type.Integer() })),
  }),
  prepare: async (input, context) =>
    input.files?.length || input.paths?.length
      ? readPaths(input, context)
      : { ok: false, message: 'give files, paths or both' },
})

export const drag = defineBrowserTool({
  name: 'browser_drag',
  displayName: 'Drag',
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  description: 'Drag one element onto another with trusted mouse input. Returns { dragged, onto }.',
  input: Type.Object({
    tabId: TabIdField,
    fromRef: RefField,
    fromSelector: SelectorField,
    toRef: RefField,
    toSelector: SelectorField,
  }),
  output: Type.Object({ dragged: Type.String(), onto: Type.String() }),
})

export const drop = defineBrowserTool({
  name: 'browser_drop',
  sink: { page: true },
  displayName: 'Drop',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  description:
    'Drop files (bytes and/or paths, 5 MB in all) and/or data by MIME type on an element, as from outside the page. Returns { droppedOn, files, types, handled }.',
  input: Type.Object({
    tabId: TabIdField,
    ref: RefField,
    selector: SelectorField,
    files: Type.Optional(Type.Array(FileBytes, { maxItems: 20, description: 'Files to drop.' })),
    paths: FilePaths,
    data: Type.Optional(
      Type.Record(Type.String({ maxLength: 100 }), Type.String({ maxLength: 100_000 }), {
        description: 'MIME type to content, e.g. { "text/plain": "hi" }.',
      }),
    ),
  }),
  output: Type.Object({
    droppedOn: Type.String(),
    files: Type.Array(Type.String()),
    types: Type.Array(Type.String()),
    handled: Type.Boolean(),
  }),
  prepare: readPaths,
})

export const insertText = defineBrowserTool({
  name: 'browser_insert_text',
  sink: { page: true },
  displayName: 'Insert text',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  description:
    'Insert text at the caret of the focused element (or of ref/selector, focused first) as one input, without key events: for rich editors. Returns { inserted, focused }.',
  input: Type.Object({
    tabId: TabIdField,
    ref: RefField,
    selector: SelectorField,
    text: Type.String({ minLength: 1, maxLength: 100_000, description: 'Text to insert.' }),
  }),
  output: Type.Object({ inserted: Type.Integer(), focused: OrNull('string') }),
})

export const keyDown = defineBrowserTool({
  name: 'browser_key_down',
  displayName: 'Key down',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  description:
    'Press and hold a key (trusted) until browser_key_up, e.g. Shift while clicking. Returns { down, focused }.',
  input: Type.Object({ tabId: TabIdField, key: Key }),
  output: Type.Object({ down: Type.String(), focused: OrNull('string') }),
})

export const keyUp = defineBrowserTool({
  name: 'browser_key_up',
  displayName: 'Key up',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  description: 'Release a key held with browser_key_down. Returns { up, focused }.',
  input: Type.Object({ tabId: TabIdField, key: Key }),
  output: Type.Object({ up: Type.String(), focused: OrNull('string') }),
})
