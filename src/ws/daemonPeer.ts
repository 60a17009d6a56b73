/**
 * The daemon's JSON-RPC peer on one /ws socket: the shared peer (src/rpc/peer.ts) with the daemon's
 * validation (compiled schemas), what the extension may send (role `extension` in src/protocol), the
 * method table for its requests, and BridgeError messages passed on with their code.
 */
import { isBridgeError } from '../errors'
import {
  ClientNotifications,
  ClientRequests,
  JsonRpcErrorCode,
  ServerRequests,
  type ClientNotificationName,
  type ClientRequestName,
  type NotificationParams,
  type ServerNotifications,
} from '../protocol'
import { Peer, RpcError, type PeerOptions, type PeerSchemas } from '../rpc/peer'
import { validate } from '../validation'
import { callMethod, type MethodHandlers } from './methodHandler'

/** The daemon's end: it sends the requests and notifications of role `daemon` in src/protocol, typed. */
export type DaemonPeer = Peer<typeof ServerRequests, typeof ServerNotifications>

/** What the daemon's end of /ws accepts from the extension and expects back from it. */
export const DAEMON_PEER_SCHEMAS: PeerSchemas<typeof ServerRequests> = {
  notifications: ClientNotifications,
  requests: ClientRequests,
  outbound: ServerRequests,
}

/** How the daemon's end checks and answers, whatever the socket: its schemas, its validation, its errors. */
export const DAEMON_PEER_POLICY: Pick<
  PeerOptions<typeof ServerRequests>,
  'schemas' | 'check' | 'errorFor'
> = {
  schemas: DAEMON_PEER_SCHEMAS,
  check: (schema, value, label) => {
    const result = validate(schema, value, label)
    return result.ok ? { ok: true } : result
  },
  // A BridgeError's message is written for the user and never holds a secret: pass it on, with
  // its code for the panel to act on (e.g. config_locked).
  errorFor: (error) =>
    isBridgeError(error)
      ? new RpcError(JsonRpcErrorCode.internalError, error.message, { code: error.code })
      : undefined,
}

export interface DaemonPeerOptions {
  send(text: string): void
  /** False once another socket replaced this one: its requests are refused. */
  isActive(): boolean
  methods: MethodHandlers
  /** Every notification the extension may send, one handler each. */
  notes: NoteHandlers
  onProblem(message: string): void
}

export function createDaemonPeer(options: DaemonPeerOptions): DaemonPeer {
  return new Peer({
    ...DAEMON_PEER_POLICY,
    send: (text) => options.send(text),
    onNotification: (method, params) => {
      if (options.isActive()) runNote(options.notes, method as ClientNotificationName, params)
    },
    onRequest: (method, params) =>
      options.isActive()
        ? callMethod(options.methods, method as ClientRequestName, params)
        : Promise.reject(new RpcError(JsonRpcErrorCode.invalidRequest, 'this connection was replaced')),
    onProblem: (message) => options.onProblem(message),
  })
}

export type ClientNote<K extends keyof typeof ClientNotifications> = NotificationParams<
  typeof ClientNotifications,
  K
>

/**
 * The daemon's handling of what the extension tells it: one handler per notification of role
 * `extension` in src/protocol, typed by its params. A notification added to the protocol without a
 * handler here is a type error where the table is built (src/ws/extensionLink.ts).
 */
export type NoteHandlers = { [K in ClientNotificationName]: (params: ClientNote<K>) => void }

/** Runs the handler of a notification whose method and params the peer has already checked. */
function runNote(handlers: NoteHandlers, method: ClientNotificationName, params: unknown): void {
  ;(handlers[method] as (params: unknown) => void)(params)
}
