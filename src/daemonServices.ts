/**
 * What the front's routes answer with (src/http/routes.ts `Services`), from the daemon's parts:
 * /health's payload, /ws sockets to the extension link, /mcp to the MCP sessions, /audit queries,
 * and the extension's reload. Part of the composition root, kept apart like ./daemonHealth.
 */
import { healthSource, type HealthParts } from './daemonHealth'
import type { Services } from './http/routes'

export function daemonServices(parts: HealthParts): Omit<Services, 'wsUrl'> {
  const { link } = parts.extension
  return {
    getHealth: healthSource(parts),
    openExtensionSocket: (socket) => link.open(socket),
    mcp: (request, client) => parts.sessions.handle(request, client),
    queryAudit: (query) => parts.stores.audit.query(query),
    reloadExtension: () => link.port.notify('extension.reload', {}),
  }
}
