import { ClientNotifications, ClientRequests, ServerRequests } from '../protocol'
import type { PeerSchemas } from './peer'

/** What the daemon's end of /ws accepts from the extension and expects back from it. */
export const DAEMON_PEER_SCHEMAS: PeerSchemas = {
  notifications: ClientNotifications,
  requests: ClientRequests,
  outbound: ServerRequests,
}
