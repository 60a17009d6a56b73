/**
 * The adapter runtime: turns a plugin definition into the page contract (`PageAdapter`) and defines
 * it on the frozen page global `globalThis['__bridgeAdapter:<plugin>']`. `bridge-plugin build` wraps
 * every adapter bundle so that it calls `registerAdapter()` once when injected into a tab.
 *
 * Nothing here validates input (the daemon did), and nothing here throws: the extension gets
 * `{ ok: false, error }` for every failure.
 */
import type { AdapterError, AdapterEvent, AdapterResult, PageAdapter } from '../protocol/adapter'
import { ADAPTER_EVENT_SOURCE, ADAPTER_GLOBAL_PREFIX, SDK_VERSION } from '../protocol/constants'
import type { LogLevel } from '../protocol/messages'
import { createPageFetch, type FetchEnv } from './pageFetch'
import { isToolError } from './toolError'
import type { PluginDefinition, ToolContext, ToolDefinition } from './types'

export interface AdapterMeta {
  name: string
  version: string
}

/** The page around the adapter. Defaults to the real page; tests pass their own. */
export interface AdapterEnv extends FetchEnv {
  post(event: AdapterEvent): void
}

/** Builds the PageAdapter for a plugin without registering it. */
export function createAdapter(
  plugin: PluginDefinition,
  meta: AdapterMeta,
  env: AdapterEnv = pageEnv(),
): PageAdapter {
  const tools = new Map<string, ToolDefinition>(plugin.tools.map((t) => [t.name, t]))
  const { fetch, fetchJSON } = createPageFetch(env)

  const emit = (event: AdapterEvent): void => {
    try {
      env.post(event)
    } catch {
      // Data that cannot be cloned must not fail the tool: send the entry without it.
      if (event.kind === 'log' && event.data !== undefined) emit({ ...event, data: safeText(event.data) })
    }
  }
  const log = (level: LogLevel) => (message: string, data?: unknown) =>
    emit({
      source: ADAPTER_EVENT_SOURCE,
      kind: 'log',
      plugin: meta.name,
      level,
      message: String(message),
      ...(data === undefined ? {} : { data }),
      ts: Date.now(),
    })

  const contextFor = (dispatchId: string): ToolContext => ({
    dispatchId,
    progress: (progress, total, message) =>
      emit({
        source: ADAPTER_EVENT_SOURCE,
        kind: 'progress',
        plugin: meta.name,
        dispatchId,
        progress,
        ...(total === undefined ? {} : { total }),
        ...(message === undefined ? {} : { message }),
      }),
    log: { debug: log('debug'), info: log('info'), warn: log('warning'), error: log('error') },
    fetch,
    fetchJSON,
  })

  const adapter: PageAdapter = {
    name: meta.name,
    version: meta.version,
    sdkVersion: SDK_VERSION,
    tools: Object.freeze([...tools.keys()]),
    async isReady() {
      if (!plugin.isReady) return true
      try {
        return (await plugin.isReady()) === true
      } catch {
        return false
      }
    },
    async invoke(toolName, input, dispatchId): Promise<AdapterResult> {
      const tool = tools.get(toolName)
      if (!tool)
        return failure({
          code: 'unknown_tool',
          message: `plugin ${meta.name} has no tool "${toolName}"`,
          category: 'validation',
        })
      try {
        const output: unknown = await tool.handle(input as never, contextFor(dispatchId))
        return { ok: true, output: output === undefined ? null : output }
      } catch (error) {
        return failure(toAdapterError(error))
      }
    },
  }
  return Object.freeze(adapter)
}

/**
 * Defines the adapter global once. A page keeps the first adapter registered under a name (the
 * global is frozen and non-configurable); a changed adapter takes effect after the tab reloads.
 */
export function registerAdapter(plugin: PluginDefinition, meta: AdapterMeta, env?: AdapterEnv): PageAdapter {
  const key = ADAPTER_GLOBAL_PREFIX + meta.name
  const existing = (globalThis as Record<string, unknown>)[key]
  if (existing !== undefined) return existing as PageAdapter
  const adapter = createAdapter(plugin, meta, env)
  Object.defineProperty(globalThis, key, {
    value: adapter,
    writable: false,
    configurable: false,
    enumerable: false,
  })
  return adapter
}

/** Maps anything a tool threw to the wire error: ToolErrors keep their fields, the rest is internal. */
export function toAdapterError(error: unknown): AdapterError {
  if (isToolError(error))
    return { code: error.code, message: error.message, category: error.category, retryable: error.retryable }
  const message = error instanceof Error ? error.message : safeText(error)
  return { code: 'tool_error', message: message || 'the tool failed without a message', category: 'internal' }
}

function failure(error: AdapterError): AdapterResult {
  return { ok: false, error }
}

function safeText(value: unknown): string {
  try {
    return typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value))
  } catch {
    return String(value)
  }
}

function pageEnv(): AdapterEnv {
  // Taken once, at injection: page code that replaces fetch or postMessage later does not see calls.
  const fetch = globalThis.fetch.bind(globalThis)
  const postMessage = globalThis.postMessage.bind(globalThis)
  const location = globalThis.location
  // The message goes to this same window; opaque origins (file:, sandboxed frames) cannot be named.
  const origin = location.origin === 'null' ? '*' : location.origin
  return {
    // Read per request: single-page apps change the path without a new injection.
    get baseUrl() {
      return location.href
    },
    fetch,
    post: (event) => postMessage(event, origin),
  }
}
