/**
 * The page-side contract between a plugin's adapter bundle (`dist/adapter.iife.js`, built with the
 * SDK) and the extension. The adapter runs in the page's MAIN world and defines one frozen,
 * non-writable global `globalThis['__bridgeAdapter:<plugin>']` of type `PageAdapter`. Progress and log
 * events leave the MAIN world by `window.postMessage(AdapterEvent, location.origin)`; the extension's
 * content script (ISOLATED world) relays them to the service worker.
 */
import type { LogLevel } from './messages'

export interface AdapterError {
  code: string
  message: string
  category?: string
  retryable?: boolean
}

export type AdapterResult = { ok: true; output: unknown } | { ok: false; error: AdapterError }

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

export type AdapterEvent =
  | {
      source: 'bridge-adapter'
      kind: 'progress'
      plugin: string
      dispatchId: string
      progress: number
      total?: number
      message?: string
    }
  | {
      source: 'bridge-adapter'
      kind: 'log'
      plugin: string
      level: LogLevel
      message: string
      data?: unknown
      ts: number
    }
