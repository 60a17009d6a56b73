/**
 * Development inspection (`bridge start --inspect` or BRIDGE_INSPECT=1): every actor of the running
 * system, its events and snapshots, streamed with @statelyai/inspect to an inspector server on this
 * machine (BRIDGE_INSPECT_URL, default ws://127.0.0.1:8080). Off by default: events carry tool
 * arguments. Strings that look like the secret are redacted before anything leaves the process.
 */
import type { createInspector as CreateInspector } from '@statelyai/inspect'
import type { InspectionEvent, Observer } from 'xstate'
import { BridgeError, BridgeErrorCode } from './errors'
import { loopbackSocketUrl, openClientSocket, type ClientSocket } from './http/clientSocket'
import { log, redact } from './log'

const logger = log.withTag('inspect')

export const INSPECT_DEFAULT_URL = 'ws://127.0.0.1:8080'
/** Events kept while the inspector server is not there yet; the oldest go first. */
const MAX_BUFFERED_EVENTS = 500
const MAX_DEPTH = 8
const RETRY_MIN_MS = 1_000
const RETRY_MAX_MS = 30_000

export interface InspectorHandle {
  readonly url: string
  readonly inspect: Observer<InspectionEvent>
  stop(): void
}

/**
 * The inspector URL when inspection is asked for (flag or BRIDGE_INSPECT=1), else undefined.
 * Throws BridgeError for a BRIDGE_INSPECT value other than 0/1 or a URL off this machine.
 */
export function inspectUrlFrom(flag: boolean, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const value = env.BRIDGE_INSPECT ?? ''
  if (value !== '' && value !== '0' && value !== '1')
    throw new BridgeError(
      BridgeErrorCode.inspectUnavailable,
      `BRIDGE_INSPECT must be 0 or 1 (got "${value}")`,
    )
  if (!flag && value !== '1') return undefined
  return loopbackSocketUrl(env.BRIDGE_INSPECT_URL || INSPECT_DEFAULT_URL, 'BRIDGE_INSPECT_URL').href
}

/** Starts streaming; the connection is retried with backoff until `stop()`, and never fails the daemon. */
export async function startInspector(rawUrl: string): Promise<InspectorHandle> {
  const url = loopbackSocketUrl(rawUrl, 'BRIDGE_INSPECT_URL')
  let createInspector: typeof CreateInspector
  try {
    ;({ createInspector } = await import('@statelyai/inspect'))
  } catch {
    throw new BridgeError(
      BridgeErrorCode.inspectUnavailable,
      '--inspect needs the development dependency @statelyai/inspect: run `npm install` in the bridge checkout',
    )
  }
  const link = createInspectorLink(url)
  const inspector = createInspector(
    {
      start: () => link.start(),
      stop: () => link.stop(),
      send: (event) => link.send(JSON.stringify(toInspectable(event))),
    },
    { autoStart: false },
  )
  let stopped = false
  let failed = false
  // XState calls this inside every transition: the work happens later, and nothing it throws may
  // reach the actors or the process.
  const inspect: Observer<InspectionEvent> = {
    next(event) {
      if (stopped) return
      setImmediate(() => {
        if (stopped) return
        try {
          report(inspector, event)
        } catch (error) {
          if (!failed)
            logger.warn(
              `dropped an actor event it could not send: ${error instanceof Error ? error.message : String(error)}`,
            )
          failed = true
        }
      })
    },
  }
  inspector.start()
  return {
    url: url.href,
    inspect,
    stop() {
      stopped = true
      inspector.stop()
    },
  }
}

type StatelyInspector = ReturnType<typeof CreateInspector>

function report(inspector: StatelyInspector, event: InspectionEvent): void {
  switch (event.type) {
    case '@xstate.actor':
      // No `info`: given a parentId or rootId, inspect 0.7 drops it; it reads both from the ref itself.
      inspector.actor(namedRef(event.actorRef), event.actorRef.getSnapshot() as InspectedSnapshot)
      return
    case '@xstate.event':
      inspector.event(event.actorRef, event.event, event.sourceRef ? { source: event.sourceRef } : {})
      return
    case '@xstate.snapshot':
      inspector.snapshot(event.actorRef, event.snapshot, { event: event.event })
      return
    default:
    // Microsteps and actions: the inspector UI draws them from snapshots.
  }
}

type InspectedSnapshot = Parameters<StatelyInspector['snapshot']>[1]
type InspectedRef = Parameters<StatelyInspector['actor']>[0]

/**
 * The inspector names an actor after its machine's id; promise and callback actors have no machine,
 * so they are shown under their own id (`validate`, `dispatch`) instead of "undefined".
 */
function namedRef(ref: InspectionEvent['actorRef']): InspectedRef {
  const inner = ref as InspectionEvent['actorRef'] & { id?: string; logic?: { config?: unknown } }
  const config = inner.logic?.config
  if (typeof config === 'object' && config !== null) return ref
  return Object.assign(Object.create(ref) as object, {
    logic: { config: { id: inner.id ?? ref.sessionId } },
  }) as unknown as InspectedRef
}

/** The socket to the inspector server: buffers until open, reconnects with backoff, quiet when stopped. */
function createInspectorLink(url: URL) {
  const buffered: string[] = []
  let socket: ClientSocket | undefined
  let open = false
  let stopped = true
  let retryMs = RETRY_MIN_MS
  let retryTimer: NodeJS.Timeout | undefined
  let warned = false

  const connect = () => {
    socket = openClientSocket(url, {
      open() {
        open = true
        warned = false
        retryMs = RETRY_MIN_MS
        logger.info(`streaming actor events to ${url.href}`)
        for (const text of buffered.splice(0)) socket?.send(text)
      },
      closed(reason) {
        open = false
        if (stopped) return
        if (!warned)
          logger.warn(`cannot reach the inspector at ${url.href} (${reason}); retrying until it is there`)
        warned = true
        retryTimer = setTimeout(connect, retryMs)
        retryTimer.unref()
        retryMs = Math.min(retryMs * 2, RETRY_MAX_MS)
      },
    })
  }
  return {
    start() {
      if (!stopped) return
      stopped = false
      connect()
    },
    stop() {
      stopped = true
      open = false
      clearTimeout(retryTimer)
      socket?.close()
      buffered.length = 0
    },
    send(text: string) {
      if (stopped) return
      if (open && socket?.send(text)) return
      buffered.push(text)
      if (buffered.length > MAX_BUFFERED_EVENTS) buffered.shift()
    },
  }
}

/**
 * A JSON-safe copy of an inspection event: plain objects and arrays to a fixed depth, actor refs as
 * their ids, other class instances (sockets, timers) by name only, cycles cut, secrets redacted.
 */
export function toInspectable(
  value: unknown,
  depth = MAX_DEPTH,
  seen = new WeakSet<object>(),
  useToJSON = true,
): unknown {
  if (typeof value === 'string') return redact(value)
  if (typeof value === 'bigint') return value.toString()
  if (typeof value === 'function' || typeof value === 'symbol') return undefined
  if (value === null || typeof value !== 'object') return value
  if (seen.has(value)) return '[Circular]'
  if (depth <= 0) return Array.isArray(value) ? '[Array]' : '[Object]'
  seen.add(value)
  try {
    if (Array.isArray(value)) return value.map((item) => toInspectable(item, depth - 1, seen) ?? null)
    if (value instanceof Error) return { name: value.name, message: redact(value.message) }
    if (value instanceof Map) return toInspectable(Object.fromEntries(value), depth, seen)
    if (value instanceof Set) return toInspectable([...value], depth, seen)
    const toJSON = (value as { toJSON?: unknown }).toJSON
    // As in JSON.stringify, toJSON is called once per value, never on its own result (XState's
    // transitions return a fresh object that has toJSON again). Actor refs become { xstate$$type, id }.
    if (useToJSON && typeof toJSON === 'function')
      return toInspectable((toJSON as () => unknown).call(value), depth, seen, false)
    const proto = Object.getPrototypeOf(value) as object | null
    if (proto !== Object.prototype && proto !== null)
      return `[${(value.constructor as { name?: string } | undefined)?.name ?? 'object'}]`
    const out: Record<string, unknown> = {}
    for (const [key, item] of Object.entries(value)) {
      const copy = toInspectable(item, depth - 1, seen)
      if (copy !== undefined) out[key] = copy
    }
    return out
  } finally {
    seen.delete(value)
  }
}
