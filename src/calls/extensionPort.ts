/** The extension as a tool call reaches it, declared here where calls use it; src/ws/extensionSockets.ts provides it. */
import type {
  NotificationParams,
  RequestParams,
  RequestResult,
  ServerNotificationName,
  ServerNotifications,
  ServerRequestName,
  ServerRequests,
} from '../protocol'

/**
 * What a tool call needs of the extension: is it there, tell it something, ask it something. The
 * extension's sockets (src/ws/extensionSockets.ts) provide it; the catalogue's and sites'
 * announcements use it too.
 */
export interface ExtensionPort {
  readonly connected: boolean
  /**
   * Sends a notification on the active connection; false when there is none. With `soon`, it may wait
   * a few milliseconds for the next frame to leave with it (see Peer.notifySoon).
   */
  notify<K extends ServerNotificationName>(
    method: K,
    params: NotificationParams<typeof ServerNotifications, K>,
    options?: { soon?: boolean },
  ): boolean
  /** Sends a request on the active connection; undefined when there is none. `forget` drops a late answer. */
  request<K extends ServerRequestName>(
    method: K,
    params: RequestParams<typeof ServerRequests, K>,
  ): { result: Promise<RequestResult<typeof ServerRequests, K>>; forget: () => void } | undefined
}
