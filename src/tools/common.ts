/** Schema fragments shared by many built-in tools. */
import { Type } from '@sinclair/typebox'

export const TabIdField = Type.Optional(
  Type.Integer({
    minimum: 0,
    description: 'From browser_list_tabs; default: the active tab.',
  }),
)

export const RefField = Type.Optional(
  Type.String({
    pattern: '^(f[0-9]{1,12})?e[0-9]{1,7}$',
    description: 'Ref from browser_snapshot (e12, or f3e7 in a frame); or give selector.',
  }),
)

export const SelectorField = Type.Optional(
  Type.String({
    minLength: 1,
    maxLength: 2000,
    description: 'CSS selector (first match); or give ref.',
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

/** The size of the bytes a base64 string encodes. */
export const decodedSize = (base64: string): number => Math.floor((base64.replace(/=+$/, '').length * 3) / 4)

/** Added to every tool that takes a tabId: the explicit consent to act in another agent's tab group. */
export const OTHER_AGENT_FIELD = 'otherAgent'
