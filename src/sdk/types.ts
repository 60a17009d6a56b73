/**
 * Types of the plugin SDK: what a plugin author writes (`PluginDefinition`, `ToolDefinition`) and
 * what a tool receives while it runs (`ToolContext`).
 */
import type { Static, TObject, TSchema, TUnknown } from '@sinclair/typebox'

/** Plugin log helpers. Entries reach the daemon log and MCP clients (`notifications/message`). */
export interface ToolLogger {
  debug: (message: string, data?: unknown) => void
  info: (message: string, data?: unknown) => void
  warn: (message: string, data?: unknown) => void
  error: (message: string, data?: unknown) => void
}

/** Options of `ctx.fetchJSON`: `json` is sent as the request body with `content-type: application/json`. */
export interface FetchJSONInit extends RequestInit {
  json?: unknown
}

/** What a tool's `handle()` receives besides its input. */
export interface ToolContext {
  /** Id of this call; unique per dispatch. */
  readonly dispatchId: string
  /** Reports progress to the agent. Each report also extends the call's timeout. */
  progress: (progress: number, total?: number, message?: string) => void
  readonly log: ToolLogger
  /**
   * `fetch` for the page's own origin, with the page's cookies and a 30 s timeout. Other origins
   * are refused; a non-2xx status becomes a ToolError (401/403 `auth`, 404 `not_found`, 429
   * `rate_limit`, else `internal`).
   */
  fetch: (input: string | URL, init?: RequestInit) => Promise<Response>
  /** `ctx.fetch` that sends and expects JSON and returns the parsed body. */
  fetchJSON: <T = unknown>(input: string | URL, init?: FetchJSONInit) => Promise<T>
}

/** MCP tool annotations a plugin may declare. Absent hints mean what MCP says they default to. */
export interface ToolAnnotations {
  /** The tool does not change anything (default false). */
  readOnlyHint?: boolean
  /** When it changes something, it may delete or overwrite (default true). */
  destructiveHint?: boolean
  /** Calling it again with the same input has no further effect (default false). */
  idempotentHint?: boolean
  /** It reaches beyond the page it runs in, e.g. other sites or people (default true). */
  openWorldHint?: boolean
}

/** Output type of a tool: the schema's static type when an output schema is given. */
export type ToolOutput<O extends TSchema | undefined> = O extends TSchema ? Static<O> : unknown

/** One tool of a plugin. Prefer `defineTool()`, which infers `handle`'s input type from `input`. */
export interface ToolDefinition<
  I extends TObject = TObject,
  O extends TSchema | undefined = TSchema | undefined,
> {
  /** Base name, e.g. `list_notes`; agents see `<plugin>_<name>`. Pattern `^[a-z][a-z0-9]*(_[a-z0-9]+)*$`. */
  name: string
  /** Human name for the side panel; defaults to the name with spaces. */
  displayName?: string
  /** What the tool does, written for the agent. */
  description: string
  /** Input schema (TypeBox object). The daemon validates every call against it before dispatch. */
  input: I
  /** Optional output schema, published in tools.json. */
  output?: O
  /**
   * Hints for agents and the side panel (MCP tool annotations), e.g. `{ readOnlyHint: true }` for a
   * tool that only reads. They inform; they never change the tool's permission, which the user sets.
   *
   * @example
   *   defineTool({ name: 'delete_note', annotations: { destructiveHint: true, idempotentHint: true }, ... })
   */
  annotations?: ToolAnnotations
  /** Runs in the page. Throw a ToolError to fail with a code and category. */
  handle(input: Static<I>, ctx: ToolContext): Promise<ToolOutput<O>> | ToolOutput<O>
}

/** A plugin: a readiness probe and its tools. Default-export it from the plugin's entry. */
export interface PluginDefinition {
  /**
   * True when the page can run tools (typically: the user is signed in). Called with a 5 s limit;
   * a throw or a timeout counts as false. Defaults to always ready.
   */
  isReady?: () => boolean | Promise<boolean>
  tools: readonly ToolDefinition[]
}

export type { Static, TObject, TSchema, TUnknown }
