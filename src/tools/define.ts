import type { Static, TObject } from '@sinclair/typebox'

/** A built-in tool as the daemon lists it and the extension runs it. */
export interface BrowserToolDefinition<S extends TObject = TObject> {
  /** Full tool name: `browser_*` or `extension_*`. */
  name: string
  displayName: string
  /** Written for an AI agent: what it does, what it returns, its limits. */
  description: string
  input: S
  /**
   * How far the `browser` pseudo-plugin's default reaches this tool. `ask`: the default applies but
   * never above ask (an `auto` default asks). `off`: the default does not apply at all; only a setting
   * for this tool enables it, and "allow always" never turns it to auto. Absent: the default applies.
   * A per-tool setting always wins.
   */
  defaultCap?: 'ask' | 'off'
}

/** Adds types only: ties a tool's name and description to its TypeBox input schema. */
export function defineBrowserTool<S extends TObject>(
  tool: BrowserToolDefinition<S>,
): BrowserToolDefinition<S> {
  return tool
}

export type BrowserToolInput<T> = T extends BrowserToolDefinition<infer S> ? Static<S> : never
