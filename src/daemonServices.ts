/**
 * What the front's routes answer with (`Services` of src/http/front.ts), from the daemon's parts:
 * /health's payload, /ws sockets to the extension link, /mcp to the MCP sessions, /audit queries,
 * and the extension's reload. Part of the composition root, kept apart like ./daemonHealth.
 */
import { healthSource, type HealthParts } from './daemonHealth'
import type { Services } from './http/front'
import type { AuditTree } from './audit/auditTree'

function verifiableAudit(parts: HealthParts): AuditTree {
  const { tree } = parts.stores.audit
  if (!tree) throw new Error('the daemon runs without its verifiable audit log')
  return tree
}

export function daemonServices(parts: HealthParts): Omit<Services, 'wsUrl'> {
  const { link } = parts.extension
  return {
    getHealth: healthSource(parts),
    openExtensionSocket: (socket) => link.open(socket),
    mcp: parts.sessions,
    queryAudit: (query) => parts.stores.audit.query(query),
    auditCheckpoint: () => verifiableAudit(parts).checkpoint(),
    auditConsistency: (from) => verifiableAudit(parts).consistency(from),
    reloadExtension: () => link.port.notify('extension.reload', {}),
  }
}
