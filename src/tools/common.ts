/** Schema fragments shared by many built-in tools. */
import { Type } from '@sinclair/typebox'

export const TabIdField = Type.Optional(
  Type.Integer({
    minimum: 0,
    description: 'Tab to act on, from browser_list_tabs. Default: the active tab of the focused window.',
  }),
)

export const RefField = Type.Optional(
  Type.String({
    pattern: '^(f[0-9]{1,12})?e[0-9]{1,7}$',
    description:
      'Element ref from the latest browser_snapshot of this tab, e.g. "e12" (or "f3e7" inside a frame). Give ref or selector.',
  }),
)

export const SelectorField = Type.Optional(
  Type.String({
    minLength: 1,
    maxLength: 2000,
    description: 'CSS selector; the first matching element is used. Give ref or selector.',
  }),
)

export const WaitForLoadField = Type.Optional(
  Type.Boolean({ default: true, description: 'Wait until the page has finished loading (default true).' }),
)

export const TimeoutMsField = (defaultMs: number, maxMs: number) =>
  Type.Optional(
    Type.Integer({
      minimum: 100,
      maximum: maxMs,
      default: defaultMs,
      description: `How long to wait, in milliseconds (default ${defaultMs}, at most ${maxMs}).`,
    }),
  )

export const MaxLengthField = (defaultChars: number, maxChars: number) =>
  Type.Optional(
    Type.Integer({
      minimum: 100,
      maximum: maxChars,
      default: defaultChars,
      description: `Maximum characters returned (default ${defaultChars}, at most ${maxChars}); longer content ends with a truncation marker.`,
    }),
  )

/** Navigable URLs: web pages and the blank page. Never javascript:, file:, chrome:, data: or extension pages. */
export const WebUrlField = Type.String({
  pattern: '^(https?://\\S+|about:blank)$',
  maxLength: 8192,
  description: 'An http:// or https:// URL (or about:blank).',
})

/** Files an agent sends (upload, drop): their decoded size in all. */
export const MAX_FILE_BYTES = 5 * 1024 * 1024

/** Added to every tool that takes a tabId: the explicit consent to act in another agent's tab group. */
export const OTHER_AGENT_FIELD = 'otherAgent'
