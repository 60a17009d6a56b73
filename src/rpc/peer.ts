/**
 * One end of a JSON-RPC 2.0 link over text frames, used by both ends of /ws: the daemon
 * (src/ws/extensionSockets.ts) and the extension (extension/background/rpc.ts). Runtime-neutral: no
 * `node:*`, no Chrome API. Every inbound frame is checked (JSON, envelope, method, params against the
 * src/protocol schemas with the side's own `check`) and answered with the right JSON-RPC error; bad
 * input never throws out of `receive`. Batches are refused (-32600): neither end sends them.
 */
import type { Static, TSchema } from '@sinclair/typebox'
import { JsonRpcErrorCode, type JsonRpcErrorObject, type JsonRpcId } from '../protocol'

/** A JSON-RPC error at the wire boundary: a numeric code, a message and optional data. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message)
    this.name = 'RpcError'
  }
}

/** Notifications by method: method -> params schema. */
export type NotificationTable = Readonly<Record<string, TSchema>>
/** Requests by method: method -> [params, result]. */
export type RequestTable = Readonly<Record<string, readonly [TSchema, TSchema]>>

export interface PeerSchemas<Sends extends RequestTable = RequestTable> {
  /** Notifications this side accepts: method -> params schema. */
  notifications: NotificationTable
  /** Requests this side answers: method -> [params, result]. */
  requests: RequestTable
  /** Requests this side sends: method -> [params, result]; results are checked on the way in. */
  outbound: Sends
}

export type SchemaCheck = { ok: true } | { ok: false; message: string }

export interface PeerOptions<Sends extends RequestTable = RequestTable> {
  schemas: PeerSchemas<Sends>
  /**
   * Checks a value against a schema; `label` names its top level in the message (`params`, `result`).
   * The daemon compiles schemas (src/validation.ts); the extension interprets them (its CSP forbids eval).
   */
  check: (schema: TSchema, value: unknown, label: string) => SchemaCheck
  /** Writes one text frame. May throw when the socket is gone; the peer swallows that. */
  send: (text: string) => void
  onNotification: (method: string, params: unknown) => void
  /** Answers a request: resolves with the result, or rejects (an RpcError keeps its code and data). */
  onRequest: (method: string, params: unknown) => Promise<unknown>
  /**
   * The wire error for a handler's failure that is not an RpcError, when this side has a kind of error
   * whose message is safe to pass on; anything else is answered "Internal error" and reported.
   */
  errorFor?: (error: unknown) => RpcError | undefined
  /** Something worth a log line (malformed input, a late answer). Never carries message bodies. */
  onProblem?: (message: string) => void
}

export interface RequestOptions {
  timeoutMs?: number
}

interface Pending {
  method: string
  resolve: (value: unknown) => void
  reject: (error: RpcError) => void
  timer?: ReturnType<typeof setTimeout>
}

const isId = (v: unknown): v is JsonRpcId =>
  typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v))
const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)
const has = (o: object, key: string) => Object.prototype.hasOwnProperty.call(o, key)
const own = <T>(table: Readonly<Record<string, T>>, key: string): T | undefined =>
  Object.hasOwn(table, key) ? table[key] : undefined

/**
 * Request ids are unique across every peer of the process, not per connection: an answer that
 * arrives late, over a newer connection, to a request of a connection that is gone (a dropped
 * tool.dispatch) must find nothing, not a new request that happens to carry the same number.
 */
let lastRequestId = 0

/**
 * How long a notification sent "soon" may wait for the next frame to leave with it. Short enough that
 * nobody watching (the side panel's running calls) can tell.
 */
export const SOON_MS = 10

/**
 * One end of the link. `Sends` is the table of requests this side sends and `Tells` the notifications
 * it sends: `request` and `notify` take only their methods, with their params, and `request`'s result
 * is its method's. The untyped default (any method, unknown params) is for tests of the wire itself.
 */
export class Peer<
  Sends extends RequestTable = RequestTable,
  Tells extends NotificationTable = NotificationTable,
> {
  private readonly pending = new Map<JsonRpcId, Pending>()
  private closed = false
  /** Notifications sent "soon": they leave before the next frame, or after SOON_MS. */
  private soon: string[] = []
  private soonTimer: ReturnType<typeof setTimeout> | undefined

  constructor(private readonly options: PeerOptions<Sends>) {}

  /** Handles one inbound text frame. */
  receive(text: string): void {
    let message: unknown
    try {
      message = JSON.parse(text)
    } catch {
      this.problem('frame is not valid JSON')
      this.sendError(null, JsonRpcErrorCode.parseError, 'Parse error: the frame is not valid JSON')
      return
    }
    if (Array.isArray(message)) {
      this.sendError(null, JsonRpcErrorCode.invalidRequest, 'Invalid Request: batches are not supported')
      return
    }
    if (!isObject(message) || message.jsonrpc !== '2.0') {
      const id = isObject(message) && isId(message.id) ? message.id : null
      this.sendError(id, JsonRpcErrorCode.invalidRequest, 'Invalid Request: expected a JSON-RPC 2.0 object')
      return
    }
    if (has(message, 'method')) this.receiveCall(message)
    else if (has(message, 'result') || has(message, 'error')) this.receiveResponse(message)
    else {
      const id = isId(message.id) ? message.id : null
      this.sendError(id, JsonRpcErrorCode.invalidRequest, 'Invalid Request: no method, result or error')
    }
  }

  /** Sends a notification. Returns false when the frame could not be written. */
  notify<K extends keyof Tells & string>(method: K, params: Static<Tells[K]>): boolean {
    return this.write({ jsonrpc: '2.0', method, params })
  }

  /**
   * Sends a notification that need not leave at once (a call's end, after its answer went out): it
   * goes with the next frame, so back-to-back calls make one socket write each, or within SOON_MS.
   * Order is kept. Returns false when the link is closed.
   */
  notifySoon<K extends keyof Tells & string>(method: K, params: Static<Tells[K]>): boolean {
    if (this.closed) return false
    this.soon.push(JSON.stringify({ jsonrpc: '2.0', method, params }))
    this.soonTimer ??= setTimeout(() => this.flushSoon(), SOON_MS)
    return true
  }

  private flushSoon(): void {
    clearTimeout(this.soonTimer)
    this.soonTimer = undefined
    const frames = this.soon
    this.soon = []
    for (const frame of frames) this.sendText(frame)
  }

  /** Sends a request and waits for its answer. Rejects with RpcError on error, timeout or close. */
  request<K extends keyof Sends & string>(
    method: K,
    params: Static<Sends[K][0]>,
    options: RequestOptions = {},
  ): { id: number; result: Promise<Static<Sends[K][1]>> } {
    const id = ++lastRequestId
    // The answer's result is checked against Sends[method][1] before it resolves (receiveResponse).
    const result = new Promise<Static<Sends[K][1]>>((resolve, reject) => {
      if (this.closed) {
        reject(new RpcError(JsonRpcErrorCode.internalError, 'connection closed'))
        return
      }
      const entry: Pending = { method, resolve, reject }
      if (options.timeoutMs !== undefined)
        entry.timer = setTimeout(() => {
          this.pending.delete(id)
          reject(new RpcError(JsonRpcErrorCode.internalError, `${method} timed out`))
        }, options.timeoutMs)
      this.pending.set(id, entry)
      if (!this.write({ jsonrpc: '2.0', id, method, params })) {
        this.settle(id)
        reject(new RpcError(JsonRpcErrorCode.internalError, 'connection closed'))
      }
    })
    return { id, result }
  }

  /** Forgets a pending request: a later answer to it is dropped. */
  forget(id: number): void {
    this.settle(id)
  }

  /** Rejects every pending request; later frames and requests are refused. */
  close(reason = 'connection closed'): void {
    if (this.closed) return
    this.closed = true
    clearTimeout(this.soonTimer)
    this.soon = []
    for (const [id, entry] of [...this.pending]) {
      this.settle(id)
      entry.reject(new RpcError(JsonRpcErrorCode.internalError, reason))
    }
  }

  get isClosed(): boolean {
    return this.closed
  }

  get pendingCount(): number {
    return this.pending.size
  }

  private receiveCall(message: Record<string, unknown>): void {
    const { method, params } = message
    const isRequest = has(message, 'id')
    if (isRequest && !isId(message.id)) {
      this.sendError(
        null,
        JsonRpcErrorCode.invalidRequest,
        'Invalid Request: id must be a string or a number',
      )
      return
    }
    const id = isRequest ? (message.id as JsonRpcId) : null
    if (typeof method !== 'string') {
      if (id !== null)
        this.sendError(id, JsonRpcErrorCode.invalidRequest, 'Invalid Request: method must be a string')
      else this.problem('notification without a string method')
      return
    }
    const value = params === undefined ? {} : params
    const { notifications, requests } = this.options.schemas
    if (id === null) {
      const schema = own(notifications, method)
      if (!schema) return this.problem(`unknown notification ${method.slice(0, 64)}`)
      const check = this.options.check(schema, value, 'params')
      if (!check.ok) return this.problem(`invalid ${method}: ${check.message}`)
      this.safely(() => this.options.onNotification(method, value))
      return
    }
    const pair = own(requests, method)
    if (!pair) {
      this.sendError(id, JsonRpcErrorCode.methodNotFound, `Method not found: ${method.slice(0, 64)}`)
      return
    }
    const check = this.options.check(pair[0], value, 'params')
    if (!check.ok) {
      this.sendError(id, JsonRpcErrorCode.invalidParams, `Invalid params: ${check.message}`)
      return
    }
    let answer: Promise<unknown>
    try {
      answer = this.options.onRequest(method, value)
    } catch (error) {
      answer = Promise.reject(error instanceof Error ? error : new Error(String(error)))
    }
    answer.then(
      (result) => this.write({ jsonrpc: '2.0', id, result }),
      (error: unknown) => {
        const wire = error instanceof RpcError ? error : this.options.errorFor?.(error)
        if (wire) return this.sendError(id, wire.code, wire.message, wire.data)
        this.problem(`handler of ${method} failed: ${error instanceof Error ? error.message : String(error)}`)
        this.sendError(id, JsonRpcErrorCode.internalError, 'Internal error')
      },
    )
  }

  private receiveResponse(message: Record<string, unknown>): void {
    if (!isId(message.id)) return this.problem('response without a usable id')
    const entry = this.pending.get(message.id)
    if (!entry) return this.problem('answer to an unknown or expired request was dropped')
    this.settle(message.id)
    if (has(message, 'error')) {
      const error = message.error
      if (!isObject(error) || typeof error.code !== 'number' || typeof error.message !== 'string') {
        entry.reject(new RpcError(JsonRpcErrorCode.invalidRequest, 'malformed error answer'))
        return
      }
      entry.reject(new RpcError(error.code, error.message, error.data))
      return
    }
    const pair = own(this.options.schemas.outbound, entry.method)
    const check = pair ? this.options.check(pair[1], message.result, 'result') : { ok: true as const }
    if (!check.ok) {
      entry.reject(
        new RpcError(JsonRpcErrorCode.invalidParams, `invalid result for ${entry.method}: ${check.message}`),
      )
      return
    }
    entry.resolve(message.result)
  }

  private settle(id: JsonRpcId): void {
    const entry = this.pending.get(id)
    if (entry?.timer) clearTimeout(entry.timer)
    this.pending.delete(id)
  }

  private sendError(id: JsonRpcId | null, code: number, message: string, data?: unknown): void {
    const error: JsonRpcErrorObject = data === undefined ? { code, message } : { code, message, data }
    this.write({ jsonrpc: '2.0', id, error })
  }

  private write(message: object): boolean {
    if (this.closed) return false
    if (this.soon.length > 0) this.flushSoon()
    return this.sendText(JSON.stringify(message))
  }

  private sendText(text: string): boolean {
    try {
      this.options.send(text)
      return true
    } catch {
      return false
    }
  }

  private safely(run: () => void): void {
    try {
      run()
    } catch (error) {
      this.problem(`handler failed: ${error instanceof Error ? error.message : String(error)}`)
    }
  }

  private problem(message: string): void {
    this.options.onProblem?.(message)
  }
}
