/** Reading a page cheaply: find lines in the snapshot, query elements, readable markdown. */
import { Type } from '@sinclair/typebox'
import { defineBrowserTool } from './define'
import { MaxLengthField, OffsetField, SelectorField, TabIdField, OrNull, StringMap } from './common'

export const find = defineBrowserTool({
  name: 'browser_find',
  core: true,
  displayName: 'Find in page',
  annotations: { readOnlyHint: true, openWorldHint: true },
  description:
    'Search the page snapshot (frames included) for text or a regular expression and return only the matching lines with their refs, each with a little context. Returns { matches: [{ line, context }], total }.',
  narrow: 'search for something narrower, or lower limit or context',
  input: Type.Object({
    tabId: TabIdField,
    text: Type.Optional(
      Type.String({ minLength: 1, maxLength: 1000, description: 'Case-insensitive text.' }),
    ),
    regex: Type.Optional(
      Type.String({ minLength: 1, maxLength: 1000, description: 'JavaScript regular expression (flag i).' }),
    ),
    context: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 5,
        default: 1,
        description: 'Lines around each match (default 1).',
      }),
    ),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 200, default: 30, description: 'Most matches (default 30).' }),
    ),
  }),
  output: Type.Object({
    total: Type.Integer(),
    matches: Type.Array(Type.Object({ line: Type.String(), context: Type.String() })),
    truncated: Type.Optional(Type.String()),
  }),
})

export const query = defineBrowserTool({
  name: 'browser_query',
  displayName: 'Query elements',
  annotations: { readOnlyHint: true, openWorldHint: true },
  description:
    'List the elements matching a CSS selector: tag, ref, role and name, text, and chosen attributes. Returns { total, elements: [{ ref, tag, role, name, text, attributes? }] }.',
  narrow: 'narrow the selector, ask for fewer attributes, or lower limit',
  input: Type.Object({
    tabId: TabIdField,
    selector: Type.String({ minLength: 1, maxLength: 2000, description: 'CSS selector.' }),
    attributes: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
        maxItems: 20,
        description: 'e.g. ["href"].',
      }),
    ),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 500, default: 50, description: 'Most elements (default 50).' }),
    ),
  }),
  output: Type.Object({
    total: Type.Integer(),
    elements: Type.Array(
      Type.Object({
        ref: Type.String(),
        tag: Type.String(),
        role: OrNull('string'),
        name: OrNull('string'),
        text: Type.String(),
        visible: Type.Boolean(),
        attributes: Type.Optional(StringMap(true)),
      }),
    ),
    truncated: Type.Optional(Type.String()),
  }),
})

export const getMarkdown = defineBrowserTool({
  name: 'browser_get_markdown',
  core: true,
  displayName: 'Page as markdown',
  annotations: { readOnlyHint: true, openWorldHint: true },
  description:
    'Read the main content of the page (or of an element) as markdown: headings, paragraphs, lists, links, tables, code; navigation and page chrome left out. Returns { markdown, length, truncated }.',
  narrow: 'pass selector for one part of the page, or a lower maxLength',
  input: Type.Object({
    tabId: TabIdField,
    selector: SelectorField,
    maxLength: MaxLengthField(20_000, 100_000),
    offset: OffsetField,
  }),
})
