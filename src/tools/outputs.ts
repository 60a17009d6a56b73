/**
 * Result shapes shared by several built-in tools (their `output`). Compact on purpose: agents read
 * them in tools/list, so no descriptions (the tool's description says what the fields mean). Objects
 * stay open: any result may also carry `openDialogs` (extension/builtins/index.ts).
 */
import { Type } from '@sinclair/typebox'
import { StringEnum } from './common'

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
