/**
 * The adapter runtime: turns a plugin definition into the page contract and serves it to the
 * extension over a private MessageChannel (see src/protocol/adapter.ts). `bridge-plugin build` wraps
 * every adapter bundle so that it opens the channel (`openAdapterChannel()`) before the plugin's own
 * modules run and then hands it the plugin, at `document_start`, before any page script runs. No
 * global is defined: the adapter lives only in this closure and the port.
 *
 * The paths from the port to a handler and back use only the built-ins captured in pageIntrinsics and
 * callbacks (never `await` on values a handler made, never resolving a promise with an object whose
 * `then` the page could define), and nothing is looked up on a page global or prototype at call time
 * (not even `String`), so a page that replaces JSON, String, fetch, XMLHttpRequest, postMessage,
 * Promise.prototype.then or defines Response.prototype.then cannot change what the extension
 * receives. Where the page can still reach a handler's own promises, the result is refused
 * (`page_tampered`) instead of delivered.
 *
 * Nothing here validates input (the daemon did), and nothing here throws: the extension gets
 * `{ ok: false, error }` for every failure.
 */
import type {
  AdapterError,
  AdapterEvent,
  AdapterResult,
  ChannelHello,
  ChannelMessage,
  PageAdapter,
} from '../protocol/adapter'
import { CHANNEL_HELLO } from '../protocol/adapter'
import { SDK_VERSION } from '../protocol/constants'
import type { LogLevel } from '../protocol/messages'
import { createPageFetch, type FetchEnv } from './pageFetch'
import { call, intrinsics as I, promiseTampering, settle, str } from './pageIntrinsics'
import { errorText, fetchTransport, xhrTransport } from './pageTransport'
import type { PluginDefinition, ToolContext, ToolDefinition } from './types'

export interface AdapterMeta {
  name: string
  version: string
}

/** The page around the adapter. Defaults to the real page; tests pass their own. */
export interface AdapterEnv extends FetchEnv {
  post(event: AdapterEvent): void
}

/** The callback form of the adapter that the channel serves. */
interface AdapterCore {
  tools: readonly string[]
  ready(done: (ready: boolean) => void): void
  invoke(tool: string, input: unknown, dispatchId: string, done: (result: AdapterResult) => void): void
}

function createCore(plugin: PluginDefinition, meta: AdapterMeta, env: AdapterEnv): AdapterCore {
  // A prototype-less lookup table: a page that patches Map.prototype.get cannot swap a handler.
  const tools = I.create(null) as Record<string, ToolDefinition>
  const names: string[] = []
  for (const t of plugin.tools) {
    tools[t.name] = t
    names.push(t.name)
  }

  const emit = (event: AdapterEvent): void => {
    try {
      env.post(event)
    } catch {
      // Data that cannot be serialized must not fail the tool: send the entry without it.
      if (event.kind === 'log' && event.data !== undefined) emit({ ...event, data: safeText(event.data) })
    }
  }
  // Each entry names the call whose context wrote it: the daemon sends it to that call's client only.
  const log = (level: LogLevel, dispatchId: string) => (message: string, data?: unknown) =>
    emit({
      kind: 'log',
      dispatchId,
      level,
      message: text(message),
      ...(data === undefined ? {} : { data }),
      ts: call<number>(I.now, Date),
    })

  /**
   * One call's context. Its fetch helpers check the page's promise built-ins again when the answer
   * arrives, the task in which the handler goes on to return: tampering seen there fails the call,
   * even if the page removed it again before the handler's promise settled.
   */
  const contextFor = (dispatchId: string, seen: { what: string | null }): ToolContext => {
    const { fetch, fetchJSON } = createPageFetch(env, (what) => (seen.what ??= what))
    return {
      dispatchId,
      progress: (progress, total, message) =>
        emit({
          kind: 'progress',
          dispatchId,
          progress,
          ...(total === undefined ? {} : { total }),
          ...(message === undefined ? {} : { message: text(message) }),
        }),
      log: {
        debug: log('debug', dispatchId),
        info: log('info', dispatchId),
        warn: log('warning', dispatchId),
        error: log('error', dispatchId),
      },
      fetch,
      fetchJSON,
    }
  }

  const tampered = (seenBefore: string | null = null): AdapterResult | null => {
    const what = seenBefore ?? promiseTampering()
    return what === null
      ? null
      : failure({
          code: 'page_tampered',
          message: `the page replaced ${what}, so a result of ${meta.name} could be forged by the page: reload the tab (a site that patches promises cannot run plugin tools)`,
          category: 'internal',
        })
  }

  return {
    tools: I.freeze(names),
    ready(done) {
      if (!plugin.isReady) return done(true)
      let value: unknown
      try {
        value = plugin.isReady()
      } catch {
        return done(false)
      }
      settle(
        value,
        (v) => done(v === true && tampered() === null),
        () => done(false),
      )
    },
    invoke(toolName, input, dispatchId, done) {
      const tool = tools[toolName]
      if (!tool)
        return done(
          failure({
            code: 'unknown_tool',
            message: `plugin ${meta.name} has no tool "${toolName}"`,
            category: 'validation',
          }),
        )
      const before = tampered()
      if (before) return done(before)
      const seen: { what: string | null } = { what: null }
      let value: unknown
      try {
        value = tool.handle(input as never, contextFor(dispatchId, seen))
      } catch (error) {
        return done(failure(toAdapterError(error)))
      }
      settle(
        value,
        (output) => done(tampered(seen.what) ?? { ok: true, output: output === undefined ? null : output }),
        (error) => done(tampered(seen.what) ?? failure(toAdapterError(error))),
      )
    },
  }
}

/** Builds the PageAdapter for a plugin without registering it (tests and page stubs use it). */
export function createAdapter(
  plugin: PluginDefinition,
  meta: AdapterMeta,
  env: AdapterEnv = pageEnv(() => undefined),
): PageAdapter {
  const core = createCore(plugin, meta, env)
  return Object.freeze({
    name: meta.name,
    version: meta.version,
    sdkVersion: SDK_VERSION,
    tools: core.tools,
    isReady: () => new Promise<boolean>((resolve) => core.ready(resolve)),
    invoke: (tool: string, input: unknown, dispatchId: string) =>
      new Promise<AdapterResult>((resolve) => core.invoke(tool, input, dispatchId, resolve)),
  })
}

/**
 * Opens the adapter's channel and serves the plugin on it. Defines nothing on the page. Returns false
 * when the page has no channel to offer (not a browser window).
 */
export function registerAdapter(plugin: PluginDefinition, meta: AdapterMeta, env?: AdapterEnv): boolean {
  const attach = openAdapterChannel(meta, env)
  if (!attach) return false
  attach(plugin)
  return true
}

/**
 * Opens the adapter's channel to the extension: one MessageChannel, one port handed to the content
 * script with one window message, and requests served on the other port. `bridge-plugin build` calls
 * it before the plugin's modules run, so the plugin's name is taken even when its code throws while
 * loading (the adapter then answers "not ready"). The returned function gives it the plugin, once.
 * Undefined when the page has no channel to offer (not a browser window).
 */
export function openAdapterChannel(
  meta: AdapterMeta,
  env?: AdapterEnv,
): ((plugin: PluginDefinition) => void) | undefined {
  const win = globalThis
  if (!I.MessageChannel || !I.windowPost || !I.portPost || !I.addEventListener || !I.eventData)
    return undefined
  const channel = new I.MessageChannel()
  const port = channel.port1
  const send = (message: ChannelMessage): void => {
    let text: string
    try {
      text = call<string>(I.stringify, JSON, message)
    } catch (error) {
      if (!('id' in message) || message.op !== 'invoke') throw error
      text = call<string>(I.stringify, JSON, {
        id: message.id,
        op: 'invoke',
        result: failure({
          code: 'tool_error',
          message: `the result of the tool is not JSON: ${errorText(error)}`,
          category: 'internal',
        }),
      })
    }
    call(I.portPost, port, text)
  }
  let core: AdapterCore | null = null
  const notLoaded = (): AdapterResult =>
    failure({
      code: 'plugin_not_loaded',
      message: `the adapter of ${meta.name} failed while loading in this page`,
      category: 'internal',
    })

  call(I.addEventListener, port, 'message', (event: MessageEvent) => {
    const data = call<unknown>(I.eventData, event)
    if (typeof data !== 'string') return
    let request: unknown
    try {
      request = call<unknown>(I.parse, JSON, data)
    } catch {
      return
    }
    if (typeof request !== 'object' || request === null) return
    // Own fields only: a field the request lacks must not be read from a getter the page put on
    // Object.prototype (an `input` of the page's choosing).
    const field = (key: string): unknown => I.getOwnPropertyDescriptor(request, key)?.value
    const id = field('id')
    if (typeof id !== 'number') return
    const op = field('op')
    const tool = field('tool')
    if (op === 'ready') {
      if (core) core.ready((ready) => send({ id, op: 'ready', ready }))
      else send({ id, op: 'ready', ready: false })
    } else if (op === 'invoke' && typeof tool === 'string') {
      if (core)
        core.invoke(tool, field('input'), text(field('dispatchId')), (result) =>
          send({ id, op: 'invoke', result }),
        )
      else send({ id, op: 'invoke', result: notLoaded() })
    }
  })
  if (I.portStart) call(I.portStart, port)

  // The content script's listener is the first on the window and hides the hello from the page. If it
  // is missing (the extension was reloaded), this one keeps the page from receiving the port.
  let handedOver = false
  try {
    call(
      I.addEventListener,
      win,
      'message',
      (event: MessageEvent) => {
        if (handedOver) return
        const data = call<Partial<ChannelHello> | null>(I.eventData, event)
        if (data?.kind !== CHANNEL_HELLO || data.plugin !== meta.name) return
        handedOver = true
        if (I.stopImmediatePropagation) call(I.stopImmediatePropagation, event)
      },
      true,
    )
  } catch {
    // Not a window that takes listeners (a test page stub): nothing for a page to listen with either.
  }
  const hello: ChannelHello = {
    kind: CHANNEL_HELLO,
    plugin: meta.name,
    version: meta.version,
    sdkVersion: SDK_VERSION,
  }
  call(I.windowPost, win, hello, '*', [channel.port2])
  return (plugin) => {
    core ??= createCore(plugin, meta, env ?? pageEnv((event) => send(event)))
  }
}

/**
 * Maps anything a tool threw to the wire error: ToolErrors keep their fields, the rest is internal.
 * Only own data properties are read (no getter, prototype or `instanceof` of the page's).
 */
export function toAdapterError(error: unknown): AdapterError {
  if (typeof error !== 'object' || error === null) {
    const message = safeText(error)
    return {
      code: 'tool_error',
      message: message || 'the tool failed without a message',
      category: 'internal',
    }
  }
  const own = (key: string): unknown => I.getOwnPropertyDescriptor(error, key)?.value
  const message = own('message')
  const code = own('code')
  if (own('name') === 'ToolError' && typeof message === 'string' && typeof code === 'string')
    return {
      code,
      message,
      category: text(own('category') ?? 'internal'),
      retryable: own('retryable') === true,
    }
  const said = typeof message === 'string' ? message : safeText(error)
  return { code: 'tool_error', message: said || 'the tool failed without a message', category: 'internal' }
}

/** A message as text: strings as they are, anything else as JSON (never the page's toString). */
function text(value: unknown): string {
  return typeof value === 'string' ? value : safeText(value)
}

function failure(error: AdapterError): AdapterResult {
  return { ok: false, error }
}

function safeText(value: unknown): string {
  try {
    return typeof value === 'string'
      ? value
      : (call<string | undefined>(I.stringify, JSON, value) ?? primitiveText(value))
  } catch {
    return primitiveText(value)
  }
}

/** Primitives (undefined, symbols, bigints) through the captured String; objects by kind only. */
function primitiveText(value: unknown): string {
  return typeof value === 'object' || typeof value === 'function' ? `[${typeof value}]` : str(value)
}

function pageEnv(post: (event: AdapterEvent) => void): AdapterEnv {
  // Taken at document_start: page code that replaces fetch or XMLHttpRequest later does not see the
  // calls. In a browser requests go through XMLHttpRequest (see pageTransport: fetch's own promise
  // would consult Response.prototype.then); `fetch` only where there is no XMLHttpRequest (vm tests).
  const fetch = I.fetch
  const location = globalThis.location
  return {
    // Read per request: single-page apps change the path without a new injection. Location's
    // properties are unforgeable: a page cannot redefine them.
    get baseUrl() {
      return location.href
    },
    transport: I.XMLHttpRequest
      ? xhrTransport
      : fetchTransport((input, init) => call<Promise<Response>>(fetch, globalThis, input, init)),
    post,
  }
}
