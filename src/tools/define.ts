import type { Static, TObject } from '@sinclair/typebox'
import type { ToolAnnotations } from '../protocol/manifest'

/** What only the daemon can do for a tool before the extension runs it: read files the user allowed. */
export interface BrowserToolContext {
  /**
   * One file from the folders the user allowed for upload (config.json `uploadFolders`): an absolute
   * path inside one of them, or a path relative to one. Refused when outside them, not a regular file,
   * or over `maxBytes`.
   */
  readUploadFile(path: string, maxBytes: number): Promise<Prepared<UploadFile>>
}

/** A file as the extension receives it: a name, a MIME type and the bytes in base64. */
export interface UploadFile {
  name: string
  mimeType?: string
  base64: string
}

/** A daemon-side step's result; a refusal's message reaches the agent as `invalid_input`. */
export type Prepared<T> = { ok: true; value: T } | { ok: false; message: string }

/**
 * Where a call's arguments may carry data, for the data-flow guard (src/guard): into the page of the
 * tab it acts on, into the origin of the URL in one of its input fields (`url`; without that field,
 * the page when `page` is set too), into any origin a URL in its strings names (`scriptUrls`).
 */
export interface ToolSink {
  page?: true
  url?: string
  scriptUrls?: true
}

/** A built-in tool as the daemon lists it and the extension runs it. */
export interface BrowserToolDefinition<
  S extends TObject = TObject,
  O extends TObject | undefined = TObject | undefined,
> {
  /** Full tool name: `browser_*` or `extension_*`. */
  name: string
  displayName: string
  /**
   * In the core set: the `browser` default permission reaches it without its group being opted into
   * (navigation, reading, acting, tabs, screenshots). Absent: only with its group (the module it is
   * defined in: `network`, `storage`...) or `all`, or set by name.
   */
  core?: true
  /**
   * `false`: its results never carry text a page wrote (only the call's own arguments, numbers and
   * bridge's words), so the daemon does not mark them as page content (src/catalog/pageText.ts); a
   * result that reports an open dialog is marked all the same. Absent: its results are the page's.
   */
  pageText?: false
  /** Written for an AI agent: what it does, what it returns, its limits. */
  description: string
  input: S
  /**
   * The shape of the tool's result, for tools whose result is one JSON object (not text or an image):
   * listed as MCP `outputSchema`, sent as `structuredContent`, and checked in the daemon before it
   * leaves. The extension's handler must return this type (extension/builtins/context.ts `Handlers`).
   * Open objects: fields not named here (`openDialogs`, added to any result) are allowed.
   */
  output?: O
  /**
   * MCP annotations, decided tool by tool (docs/browser-tools.md lists them): `readOnlyHint` and
   * `openWorldHint` always; `destructiveHint` and `idempotentHint` for tools that change something.
   * Hints for agents and the side panel; they never change the tool's permission.
   */
  annotations: Required<Pick<ToolAnnotations, 'readOnlyHint' | 'openWorldHint'>> & ToolAnnotations
  /**
   * How far the `browser` pseudo-plugin's default reaches this tool. `ask`: the default applies but
   * never above ask (an `auto` default asks). `off`: the default does not apply at all; only a setting
   * for this tool enables it, and "allow always" never turns it to auto. Absent: the default applies.
   * A per-tool setting always wins.
   */
  defaultCap?: 'ask' | 'off'
  /** Where its arguments may carry data (the data-flow guard); absent: nowhere (a read, a click). */
  sink?: ToolSink
  /**
   * `listed`: it runs in no tab and its result lists pages or files by URL (tabs, windows, downloads);
   * each listed item was read from its own URL's origin (the data-flow guard's labels).
   */
  source?: 'listed'
  /**
   * How to ask for less, for the marker of a result cut at the daemon's result cap, e.g. "pass
   * selector". Absent: a hint for any built-in tool.
   */
  narrow?: string
  /**
   * Runs in the daemon after the input is validated, before any approval: turns the agent's input into
   * what the extension runs (files named by path become bytes). The approval shows the agent's input.
   */
  prepare?(input: Static<S>, context: BrowserToolContext): Promise<Prepared<Static<S>>>
}

/** Adds types only: ties a tool's name and description to its TypeBox input (and output) schema. */
export function defineBrowserTool<S extends TObject, O extends TObject | undefined = undefined>(
  tool: BrowserToolDefinition<S, O>,
): BrowserToolDefinition<S, O> {
  return tool
}

export type BrowserToolInput<T> = T extends BrowserToolDefinition<infer S> ? Static<S> : never

/** What a tool's handler returns: its declared output's type, or anything (text, an image) without one. */
export type BrowserToolOutput<T> = T extends { output?: infer O }
  ? O extends TObject
    ? Static<O>
    : unknown
  : unknown
