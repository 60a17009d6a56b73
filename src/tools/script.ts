/** JavaScript in the page: off unless the user enables this one tool, and never auto through "allow always". */
import { Type } from '@sinclair/typebox'
import { defineBrowserTool } from './define'
import { TabIdField, AnyJson } from './common'

export const evaluate = defineBrowserTool({
  name: 'browser_evaluate',
  sink: { page: true, scriptUrls: true },
  displayName: 'Run JavaScript',
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  description:
    "Run a JavaScript expression in the page's own world; promises are awaited (10 s at most). Off unless enabled for this tool alone. Returns { value } as JSON (cut at 20000 characters) or { exception }.",
  defaultCap: 'off',
  narrow: 'return less, e.g. one property or a slice',
  input: Type.Object({
    tabId: TabIdField,
    expression: Type.String({ minLength: 1, maxLength: 50_000, description: 'e.g. "document.title".' }),
  }),
  output: Type.Object({
    value: Type.Optional(AnyJson),
    exception: Type.Optional(Type.String()),
    truncated: Type.Optional(Type.Literal(true)),
  }),
})
