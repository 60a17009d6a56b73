/** Reading a page: snapshot with element refs, text, HTML, waiting for content. */
import { Type } from '@sinclair/typebox'
import { defineBrowserTool } from './define'
import {
  CursorField,
  MaxLengthField,
  OffsetField,
  OutlineBudgetField,
  RefField,
  SelectorField,
  TabIdField,
  TimeoutMsField,
  StringEnum,
} from './common'

export const snapshot = defineBrowserTool({
  name: 'browser_snapshot',
  core: true,
  displayName: 'Page snapshot',
  annotations: { readOnlyHint: true, openWorldHint: true },
  description:
    'The visible page as an accessibility outline, one element per line, e.g. `- button "Save" [ref=e12]`; table rows and list items on one line. Refs (on what can be acted on) work in the other tools until the page navigates; iframes of any origin are included (refs like f3e7). Returns text starting with the URL and title.',
  narrow:
    'pass selector to snapshot one part of the page, depth to leave out nesting, or use browser_find or browser_query',
  input: Type.Object({
    tabId: TabIdField,
    selector: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 2000,
        description: 'Only the subtree of this CSS selector.',
      }),
    ),
    depth: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 100, description: 'Leave out deeper nesting.' }),
    ),
    maxLength: OutlineBudgetField,
    cursor: CursorField,
  }),
})

export const getText = defineBrowserTool({
  name: 'browser_get_text',
  displayName: 'Get text',
  annotations: { readOnlyHint: true, openWorldHint: true },
  description:
    'Read the visible text of an element (ref or selector) or of the whole page when neither is given. Returns { text, length, truncated }; when cut, text ends with a "[truncated at maxLength: ...]" line giving the offset of the rest.',
  narrow: 'pass ref or selector for one part of the page, or a lower maxLength',
  input: Type.Object({
    tabId: TabIdField,
    ref: RefField,
    selector: SelectorField,
    maxLength: MaxLengthField(20_000, 100_000),
    offset: OffsetField,
  }),
})

export const getHtml = defineBrowserTool({
  name: 'browser_get_html',
  displayName: 'Get HTML',
  annotations: { readOnlyHint: true, openWorldHint: true },
  description:
    'Read the HTML of an element (ref or selector) or of the whole document when neither is given. Script and style contents are kept as they are. Returns { html, length, truncated }; when cut, html ends with a "<!-- truncated: ... -->" comment saying how to narrow it.',
  narrow: 'pass ref or selector for one part of the page, or outer: false, or a lower maxLength',
  input: Type.Object({
    tabId: TabIdField,
    ref: RefField,
    selector: SelectorField,
    outer: Type.Optional(
      Type.Boolean({
        default: true,
        description: 'Include the element itself (outerHTML, default) or only its content (innerHTML).',
      }),
    ),
    maxLength: MaxLengthField(50_000, 100_000),
  }),
})

export const waitFor = defineBrowserTool({
  name: 'browser_wait_for',
  core: true,
  displayName: 'Wait for',
  annotations: { readOnlyHint: true, openWorldHint: true },
  description:
    'Wait until text appears, textGone disappears, or selector reaches state; with none, wait timeoutMs. Survives navigations. Returns { met, waitedMs }.',
  input: Type.Object({
    tabId: TabIdField,
    text: Type.Optional(
      Type.String({ minLength: 1, maxLength: 1000, description: 'Visible text, case-sensitive.' }),
    ),
    textGone: Type.Optional(Type.String({ minLength: 1, maxLength: 1000, description: 'Text to vanish.' })),
    selector: SelectorField,
    state: Type.Optional(
      StringEnum(['visible', 'hidden', 'attached', 'detached'], {
        default: 'visible',
        description: 'For selector.',
      }),
    ),
    timeoutMs: TimeoutMsField(10_000, 120_000),
  }),
  output: Type.Object({ met: Type.Boolean(), waitedMs: Type.Integer() }),
})
