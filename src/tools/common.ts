/** Schema fragments shared by many built-in tools. */
import { Type } from '@sinclair/typebox'
import { TOOL_RESULT_MAX_BYTES } from '../protocol/constants'
import type { BrowserToolContext, Prepared, UploadFile } from './define'

/** Described once, in browser_list_tabs: every tool's tab, the active one by default. */
export const TabIdField = Type.Optional(Type.Integer({ minimum: 0 }))

/**
 * One string of a fixed list, as a plain JSON Schema `enum`: what agents read in tools/list, and
 * shorter there than TypeBox's `anyOf` of constants.
 */
export const StringEnum = <const T extends readonly string[]>(
  values: T,
  options: { description?: string; default?: T[number] } = {},
) => Type.Unsafe<T[number]>({ type: 'string', enum: values, ...options })

export const RefField = Type.Optional(
  Type.String({
    pattern: '^(f\\d{1,12})?e\\d{1,7}$',
    description: 'From a snapshot; or selector.',
  }),
)

export const SelectorField = Type.Optional(
  Type.String({
    minLength: 1,
    maxLength: 2000,
    description: 'CSS (first match); or ref.',
  }),
)

export const WaitForLoadField = Type.Optional(
  Type.Boolean({ default: true, description: 'Wait for the page to load.' }),
)

export const TimeoutMsField = (defaultMs: number, maxMs: number) =>
  Type.Optional(
    Type.Integer({
      minimum: 100,
      maximum: maxMs,
      default: defaultMs,
      description: 'In milliseconds.',
    }),
  )

export const MaxLengthField = (defaultChars: number, maxChars: number) =>
  Type.Optional(
    Type.Integer({
      minimum: 100,
      maximum: maxChars,
      default: defaultChars,
      description: 'Most characters returned; more is cut, with a marker.',
    }),
  )

/** Navigable URLs: web pages and the blank page. Never javascript:, file:, chrome:, data: or extension pages. */
export const WebUrlField = Type.String({
  pattern: '^(https?://\\S+|about:blank)$',
  maxLength: 8192,
  description: 'http(s) or about:blank.',
})

/** Files an agent sends (upload, drop): their decoded size in all. */
export const MAX_FILE_BYTES = 5 * 1024 * 1024

/** The size of the bytes a base64 string encodes. */
export const decodedSize = (base64: string): number => Math.floor((base64.replace(/=+$/, '').length * 3) / 4)

/** Added to every tool that takes a tabId: the explicit consent to act in another agent's tab group. */
export const OTHER_AGENT_FIELD = 'otherAgent'

/** A snapshot's budget when the call names none (navigation and `snapshot: "full"` results too). */
export const SNAPSHOT_DEFAULT_BYTES = 50_000

/** One budget for an outline, in UTF-8 bytes of the final text; its maximum is the daemon's result cap. */
export const OutlineBudgetField = Type.Optional(
  Type.Integer({
    minimum: 100,
    maximum: TOOL_RESULT_MAX_BYTES,
    default: SNAPSHOT_DEFAULT_BYTES,
    description:
      'Most bytes of text (marker included); a cut ends with a marker giving the cursor for the rest.',
  }),
)

/** Where a read continues after a cut, as its marker says. */
export const OffsetField = Type.Optional(
  Type.Integer({ minimum: 0, description: 'Start at this character, as a cut marker says.' }),
)

export const CursorField = Type.Optional(
  Type.Integer({ minimum: 0, description: 'Continue from this line, as a cut marker says.' }),
)

/** What an action returns about the page once it has settled (see extension/builtins/actionReport.ts). */
export const SnapshotModeField = Type.Optional(
  Type.Unsafe<'diff' | 'full' | 'none'>({
    type: 'string',
    enum: ['diff', 'full', 'none'],
    description: 'Then return: diff (default), full page, none.',
  }),
)

/** After a navigation: the new page's snapshot, or only where the tab is. */
export const PageAfterField = Type.Optional(
  Type.Unsafe<'full' | 'none'>({
    type: 'string',
    enum: ['full', 'none'],
    description: 'Then return: full page (default), none (the tab).',
  }),
)

// Result shapes (a tool's `output`) shared by several tools. Compact on purpose: agents' clients read
// them in tools/list, so no descriptions (the tool's description says what the fields mean). Objects
// stay open: any result may also carry `openDialogs` (extension/builtins/index.ts).

type Scalar = 'string' | 'integer' | 'number' | 'boolean'
type ScalarOf<T extends Scalar> = T extends 'string' ? string : T extends 'boolean' ? boolean : number

/** A scalar or null, as one `type` list (shorter in tools/list than an anyOf). */
export const OrNull = <T extends Scalar>(type: T) => Type.Unsafe<ScalarOf<T> | null>({ type: [type, 'null'] })

/** An object of any keys whose values are all strings, or strings and null. */
export const StringMap = <N extends boolean = false>(nullable?: N) =>
  Type.Unsafe<Record<string, N extends true ? string | null : string>>({
    type: 'object',
    additionalProperties: { type: nullable ? ['string', 'null'] : 'string' },
  })

/** Any JSON value (what a page's script returned). */
export const AnyJson = Type.Unknown()

/** A tab as browser_list_tabs, browser_open_tab and browser_focus_tab report it. */
export const TabOutput = Type.Object({
  tabId: Type.Integer(),
  windowId: Type.Integer(),
  url: Type.String(),
  title: Type.String(),
  active: Type.Boolean(),
  status: Type.String(),
})

/** A coordinate action: where, and the element found there (null: none). */
export const PointOutput = Type.Object({
  x: Type.Number(),
  y: Type.Number(),
  target: OrNull('string'),
})

/** One download (browser_download, browser_wait_for_download, browser_download_status). */
export const DownloadOutput = Type.Object({
  id: Type.Integer(),
  url: Type.String(),
  filename: Type.String(),
  state: Type.String(),
  bytesReceived: Type.Number(),
  totalBytes: Type.Number(),
  error: Type.Optional(Type.String()),
})

/** The origin and storage area a web storage write acted on. */
export const StorageWriteBase = {
  origin: Type.String(),
  storage: StringEnum(['local', 'session']),
}

/**
 * Daemon side of upload and drop: each path is read from the folders the user allowed and joins the
 * files sent as bytes, so the extension gets bytes only; all of them together stay within MAX_FILE_BYTES.
 */
export async function readPaths<T extends { files?: UploadFile[]; paths?: string[] }>(
  input: T,
  context: BrowserToolContext,
): Promise<Prepared<T>> {
  const { paths, ...rest } = input
  if (!paths?.length) return { ok: true, value: input }
  const files = [...(input.files ?? [])]
  let left = MAX_FILE_BYTES - files.reduce((sum, f) => sum + decodedSize(f.base64), 0)
  for (const path of paths) {
    const read = await context.readUploadFile(path, Math.max(0, left))
    if (!read.ok) return read
    files.push(read.value)
    left -= decodedSize(read.value.base64)
  }
  return { ok: true, value: { ...rest, files } as unknown as T }
}
