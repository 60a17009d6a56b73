/**
 * The extension's end of the JSON-RPC 2.0 link to the daemon: the shared peer (src/rpc/peer.ts) with
 * what the extension accepts and sends (src/protocol), checked with TypeBox `Value.Check`, which
 * interprets schemas and so runs under the MV3 CSP that forbids `eval`.
 */
import type { TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import {
  ClientRequests,
  JsonRpcErrorCode,
  ServerNotifications,
  ServerRequests,
  type ClientNotificationName,
  type ClientNotifications,
  type ClientRequestName,
  type NotificationParams,
  type RequestParams,
  type RequestResult,
} from '../../src/protocol'
import { Peer, RpcError } from '../../src/rpc/peer'

export { RpcError }

export interface RpcHandlers {
  onNotification(method: string, params: unknown): void
  /** Resolves with the result or rejects; an RpcError keeps its code and data. */
  onRequest(method: string, params: unknown): Promise<unknown>
  onProblem(message: string): void
}

/** The first problem Value.Check finds, as `<path> <message>` under `label`. */
function check(schema: TSchema, value: unknown, label: string) {
  if (Value.Check(schema, value)) return { ok: true as const }
  const first = Value.Errors(schema, value).First()
  const path = first?.path ? first.path.slice(1).replaceAll('/', '.') : label
  return { ok: false as const, message: `${path} ${first?.message ?? 'is invalid'}` }
}

/** A request the extension may send (role `extension` in src/protocol): its params and its result. */
export type ClientParams<K extends ClientRequestName> = RequestParams<typeof ClientRequests, K>
export type ClientResult<K extends ClientRequestName> = RequestResult<typeof ClientRequests, K>
export type ClientNote<K extends ClientNotificationName> = NotificationParams<typeof ClientNotifications, K>

/**
 * The extension's end. What it sends is typed by src/protocol: `request` takes only a method the
 * extension may call, with that method's params, and resolves with that method's result (checked
 * against its schema on the way in); `notify` likewise.
 */
export class RpcPeer {
  private readonly peer: Peer<typeof ClientRequests, typeof ClientNotifications>

  constructor(write: (text: string) => void, handlers: RpcHandlers) {
    this.peer = new Peer({
      schemas: { notifications: ServerNotifications, requests: ServerRequests, outbound: ClientRequests },
      check,
      send: write,
      onNotification: (method, params) => handlers.onNotification(method, params),
      onRequest: (method, params) => handlers.onRequest(method, params),
      onProblem: (message) => handlers.onProblem(message),
    })
  }

  receive(text: string): void {
    this.peer.receive(text)
  }

  notify<K extends ClientNotificationName>(method: K, params: ClientNote<K>): void {
    this.peer.notify(method, params)
  }

  request<K extends ClientRequestName>(
    method: K,
    params: ClientParams<K>,
    timeoutMs = 15_000,
  ): Promise<ClientResult<K>> {
    if (this.peer.isClosed)
      return Promise.reject(new RpcError(JsonRpcErrorCode.internalError, 'not connected'))
    return this.peer.request(method, params, { timeoutMs }).result
  }

  /** Fails every pending request; later calls reject at once. */
  close(): void {
    this.peer.close()
  }
}
