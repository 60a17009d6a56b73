/**
 * The `/health` payload, composed from every subsystem the daemon wires (part of the composition
 * root, kept apart so src/daemon.ts reads as the wiring alone).
 */
import type { Actor } from 'xstate'
import type { bridgeSystemMachine } from '../machines/bridgeSystemMachine'
import type { AuditLog } from './audit'
import type { ToolCatalog } from './catalog/toolCatalog'
import type { EngineName } from './http/engine'
import { processDiagnostics, type HealthPayload } from './http/health'
import type { ExtensionSightings } from './http/proof'
import type { McpEndpoint } from './mcp/mcpEndpoint'
import { reloadStats, type PluginHost } from './plugins'
import type { DevWatcher } from './plugins/devWatcher'
import { BRIDGE_VERSION, SDK_VERSION, STATE_SCHEMA_VERSION } from './protocol/constants'
import type { DaemonLink } from './ws/daemonLink'

export interface HealthParts {
  mode: 'dev' | 'production'
  startedAt: number
  engine: () => EngineName
  /** The daemon's stores it reports on: plugins, the audit log, the tool index (built-in tools, their
   * permissions, the skip flag, the sites). */
  stores: { pluginHost: PluginHost; audit: AuditLog; catalog: ToolCatalog }
  /** The extension link and the plugin logs it relays (./ws/daemonLink). */
  extension: Pick<DaemonLink, 'link' | 'pluginLogs'>
  /** When the extension last asked /proof, with this daemon's secret or another. */
  extensionSightings: ExtensionSightings
  sessions: McpEndpoint
  devWatcher: DevWatcher | undefined
  root: Actor<typeof bridgeSystemMachine>
}

/** `getHealth` for the /health route; diagnostics only with BRIDGE_DIAGNOSTICS=1. */
export function healthSource(parts: HealthParts): () => HealthPayload {
  const diagnostics = process.env.BRIDGE_DIAGNOSTICS === '1'
  return () => {
    const { pluginHost, audit, catalog } = parts.stores
    const { link, pluginLogs } = parts.extension
    const browserToolNames = catalog.browserToolStates().map((tool) => tool.name)
    const plugins = pluginHost.health(
      (name) => link.tabState(name),
      (name) => pluginLogs.size(name),
      reloadStats(parts.root.system),
    )
    return {
      status: 'ok',
      version: BRIDGE_VERSION,
      sdkVersion: SDK_VERSION,
      mode: parts.mode,
      httpEngine: parts.engine(),
      extensionConnected: link.connected,
      ...(link.connectedVersion !== undefined ? { extensionVersion: link.connectedVersion } : {}),
      extensionConnections: link.connected ? 1 : 0,
      extensionSightings: { ...parts.extensionSightings },
      mcpClients: parts.sessions.clientCount,
      mcpSessions: parts.sessions.count,
      auditSummary: audit.summary(),
      auditLog: audit.diskStatus(),
      ...plugins,
      toolCount: browserToolNames.length + plugins.pluginToolCount,
      browserToolCount: browserToolNames.length,
      browserToolNames,
      disabledBrowserTools: browserToolNames.filter((name) => catalog.get(name)?.permission === 'off'),
      skipPermissions: catalog.skipPermissions(),
      sites: catalog.siteStates(),
      uptime: Math.floor((Date.now() - parts.startedAt) / 1000),
      stateSchemaVersion: STATE_SCHEMA_VERSION,
      ...(parts.devWatcher ? { fileWatcher: parts.devWatcher.health() } : {}),
      ...(diagnostics
        ? { diagnostics: processDiagnostics(Object.keys(parts.root.getSnapshot().children).length) }
        : {}),
    }
  }
}
