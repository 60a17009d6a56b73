/**
 * The extension's one handler table for what the daemon sends on /ws: every notification and request
 * of role `daemon` in src/protocol `WsMethods` has exactly one handler here, typed by its params (and
 * result). A method added to src/protocol without a handler is a type error where the table is built
 * (`BackgroundApp.daemonMethods` in ./app.ts). The daemon's side is src/ws/methods.ts.
 */
import type {
  NotificationParams,
  RequestParams,
  RequestResult,
  ServerNotificationName,
  ServerNotifications,
  ServerRequestName,
  ServerRequests,
} from '../../src/protocol'
import { JsonRpcErrorCode } from '../../src/protocol'
import { RpcError } from './rpc'

export type DaemonNotificationHandlers = {
  [K in ServerNotificationName]: (params: NotificationParams<typeof ServerNotifications, K>) => void
}

export type DaemonRequestHandlers = {
  [K in ServerRequestName]: (
    params: RequestParams<typeof ServerRequests, K>,
  ) => Promise<RequestResult<typeof ServerRequests, K>>
}

export interface DaemonMethods {
  notifications: DaemonNotificationHandlers
  requests: DaemonRequestHandlers
}

/** Runs the handler of a notification whose params the peer has already checked; others are ignored. */
export function runNotification(methods: DaemonMethods, method: string, params: unknown): void {
  if (!Object.hasOwn(methods.notifications, method)) return
  const handler = methods.notifications[method as ServerNotificationName] as (params: unknown) => void
  handler(params)
}

/** Runs the handler of a request whose params the peer has already checked. */
export function runRequest(methods: DaemonMethods, method: string, params: unknown): Promise<unknown> {
  if (!Object.hasOwn(methods.requests, method))
    return Promise.reject(new RpcError(JsonRpcErrorCode.methodNotFound, `Method not found: ${method}`))
  const handler = methods.requests[method as ServerRequestName] as (params: unknown) => Promise<unknown>
  return handler(params)
}
