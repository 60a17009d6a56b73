/**
 * The page-side contract between a plugin's adapter bundle (`dist/adapter.iife.js`, built with the
 * SDK) and the extension.
 *
 * The extension registers the bundle as a MAIN-world content script at `document_start` for the
 * plugin's URL patterns, so it runs before any script of the page. It defines no global. It creates a
 * MessageChannel and hands one port to the extension's content script (ISOLATED world) with one
 * `window.postMessage(ChannelHello, '*', [port])`, posted before any page script can post or listen;
 * the content script takes the first hello per plugin, hides it from the page's listeners and refuses
 * every later one. From then on requests, replies, progress and logs travel only on that port, as
 * JSON text made with the built-ins captured at `document_start`. The content script tags everything
 * from a port with the plugin the port belongs to; nothing on the port can name another plugin.
 */
import type { LogLevel } from './messages'

/** `kind` of the one window message an adapter posts: its hello, carrying its port. */
export const CHANNEL_HELLO = 'bridge-adapter-channel'

export interface AdapterError {
  code: string
  message: string
  category?: string
  retryable?: boolean
}

export type AdapterResult = { ok: true; output: unknown } | { ok: false; error: AdapterError }

/** What the runtime builds from a plugin definition; it stays inside the runtime's closure. */
export interface PageAdapter {
  readonly name: string
  readonly version: string
  readonly sdkVersion: string
  /** Names of the tools this adapter can run. */
  readonly tools: readonly string[]
  /** The plugin's readiness probe (the caller enforces READY_PROBE_TIMEOUT_MS). Never throws: false on error. */
  isReady(): Promise<boolean>
  /** Runs one tool. Never throws: failures come back as `{ ok: false, error }`. */
  invoke(tool: string, input: unknown, dispatchId: string): Promise<AdapterResult>
}

/** The window message that hands the port over (the port travels in the transfer list). */
export interface ChannelHello {
  kind: typeof CHANNEL_HELLO
  plugin: string
  version: string
  sdkVersion: string
}

/** Content script -> adapter, on the port (JSON text). */
export type ChannelRequest =
  { id: number; op: 'ready' } | { id: number; op: 'invoke'; tool: string; input: unknown; dispatchId: string }

/** Adapter -> content script, on the port (JSON text): a reply to a request, or an event. */
export type ChannelMessage =
  | { id: number; op: 'ready'; ready: boolean }
  | { id: number; op: 'invoke'; result: AdapterResult }
  | AdapterEvent

/** Progress and log events of a plugin. The plugin is the port's, never a field of the event. */
export type AdapterEvent =
  | { kind: 'progress'; dispatchId: string; progress: number; total?: number; message?: string }
  /** A log entry; `dispatchId` names the call whose context wrote it (the worker checks the call runs in this tab). */
  | { kind: 'log'; dispatchId?: string; level: LogLevel; message: string; data?: unknown; ts: number }
