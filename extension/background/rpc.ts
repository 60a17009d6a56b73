/**
 * The extension's end of the JSON-RPC 2.0 link to the daemon. Every inbound frame is checked against
 * the src/protocol schemas (TypeBox `Value.Check`: interpreted, so it runs under the MV3 CSP that
 * forbids `eval`) and answered with the matching JSON-RPC error; bad input never throws.
 */
import type { TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import {
  ClientRequests,
  JsonRpcErrorCode,
  ServerNotifications,
  ServerRequests,
  type JsonRpcId,
} from '../../src/protocol'

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

export interface RpcHandlers {
  onNotification(method: string, params: unknown): void
  /** Resolves with the result or rejects; an RpcError keeps its code and data. */
  onRequest(method: string, params: unknown): Promise<unknown>
  onProblem(message: string): void
}

interface Pending {
  method: string
  resolve: (v: unknown) => void
  reject: (e: RpcError) => void
  timer: ReturnType<typeof setTimeout>
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)
const isId = (v: unknown): v is JsonRpcId =>
  typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v))
const notificationSchemas: Record<string, TSchema> = ServerNotifications
const requestSchemas: Record<string, readonly [TSchema, TSchema]> = ServerRequests
const outboundSchemas: Record<string, readonly [TSchema, TSchema]> = ClientRequests

export class RpcPeer {
  private nextId = 1
  private readonly pending = new Map<JsonRpcId, Pending>()
  private closed = false

  constructor(
    private readonly write: (text: string) => void,
    private readonly handlers: RpcHandlers,
  ) {}

  receive(text: string): void {
    let msg: unknown
    try {
      msg = JSON.parse(text)
    } catch {
      this.reply(null, { code: JsonRpcErrorCode.parseError, message: 'Parse error' })
      return
    }
    if (!isObject(msg) || msg.jsonrpc !== '2.0') {
      this.reply(isObject(msg) && isId(msg.id) ? msg.id : null, {
        code: JsonRpcErrorCode.invalidRequest,
        message: 'Invalid Request',
      })
      return
    }
    if (typeof msg.method === 'string') this.receiveCall(msg.method, msg)
    else if (isId(msg.id) && ('result' in msg || 'error' in msg)) this.receiveAnswer(msg.id, msg)
    else this.handlers.onProblem('frame without method or answer')
  }

  notify(method: string, params: unknown): void {
    this.send({ jsonrpc: '2.0', method, params })
  }

  request(method: string, params: unknown, timeoutMs = 15_000): Promise<unknown> {
    if (this.closed) return Promise.reject(new RpcError(JsonRpcErrorCode.internalError, 'not connected'))
    const id = this.nextId++
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id)
        reject(new RpcError(JsonRpcErrorCode.internalError, `${method} timed out`))
      }, timeoutMs)
      this.pending.set(id, { method, resolve, reject, timer })
      this.send({ jsonrpc: '2.0', id, method, params })
    })
  }

  /** Fails every pending request; later calls reject at once. */
  close(): void {
    this.closed = true
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer)
      p.reject(new RpcError(JsonRpcErrorCode.internalError, 'connection closed'))
      this.pending.delete(id)
    }
  }

  private receiveCall(method: string, msg: Record<string, unknown>): void {
    const params = msg.params ?? {}
    if (!('id' in msg)) {
      const schema = notificationSchemas[method]
      if (!schema) return this.handlers.onProblem(`unknown notification ${method}`)
      if (!Value.Check(schema, params)) return this.handlers.onProblem(`invalid params for ${method}`)
      this.handlers.onNotification(method, params)
      return
    }
    const id = msg.id
    if (!isId(id))
      return this.reply(null, { code: JsonRpcErrorCode.invalidRequest, message: 'Invalid Request: bad id' })
    const schemas = requestSchemas[method]
    if (!schemas)
      return this.reply(id, { code: JsonRpcErrorCode.methodNotFound, message: `Method not found: ${method}` })
    if (!Value.Check(schemas[0], params))
      return this.reply(id, { code: JsonRpcErrorCode.invalidParams, message: `Invalid params for ${method}` })
    this.handlers.onRequest(method, params).then(
      (result) => this.send({ jsonrpc: '2.0', id, result }),
      (err: unknown) =>
        this.reply(
          id,
          err instanceof RpcError
            ? { code: err.code, message: err.message, data: err.data }
            : {
                code: JsonRpcErrorCode.internalError,
                message: err instanceof Error ? err.message : String(err),
              },
        ),
    )
  }

  private receiveAnswer(id: JsonRpcId, msg: Record<string, unknown>): void {
    const p = this.pending.get(id)
    if (!p) return this.handlers.onProblem('answer to an unknown request')
    this.pending.delete(id)
    clearTimeout(p.timer)
    if ('error' in msg) {
      const e = isObject(msg.error) ? msg.error : {}
      p.reject(
        new RpcError(
          typeof e.code === 'number' ? e.code : JsonRpcErrorCode.internalError,
          typeof e.message === 'string' ? e.message : 'error',
          e.data,
        ),
      )
      return
    }
    const schema = outboundSchemas[p.method]?.[1]
    if (schema && !Value.Check(schema, msg.result)) {
      p.reject(new RpcError(JsonRpcErrorCode.internalError, `invalid result for ${p.method}`))
      return
    }
    p.resolve(msg.result)
  }

  private reply(id: JsonRpcId | null, error: { code: number; message: string; data?: unknown }): void {
    this.send({ jsonrpc: '2.0', id, error })
  }

  private send(msg: object): void {
    if (this.closed) return
    try {
      this.write(JSON.stringify(msg))
    } catch {
      // The socket went away between the check and the write; the close handler cleans up.
    }
  }
}
