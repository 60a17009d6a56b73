/**
 * `GET /health`: `{ status: 'ok' }` to anyone who passes the gate; the full payload to a caller with
 * the secret. The payload comes from a provider the daemon composes from every subsystem.
 */
import type { AuditDiskStatus } from '../audit/auditEntry'
import type { DiscoveryError, FailedPlugin, PluginSource, TabInfo, TabStateName } from '../protocol/manifest'
import type { SiteState } from '../protocol/siteTools'
import type { EngineName } from './engine'
import { jsonResponse } from './responses'
import type { Route } from './route'

export interface PluginDetail {
  name: string
  displayName: string
  /** Installed version (beyond the spec's table: `bridge config set` records it as reviewed). */
  version: string
  /** Package and adapter hash (beyond the spec's table): with `version`, what a review is bound to. */
  packageName: string
  adapterHash: string
  toolCount: number
  tools: string[]
  tabState: TabStateName
  tabs: TabInfo[]
  iconSvg?: string
  source: PluginSource
  /** Local plugins: their folder (beyond the spec's table: a review of a local plugin records it). */
  path?: string
  sdkVersion: string | null
  logBufferSize: number
}

export interface FileWatcherHealth {
  watchedPlugins: number
  pendingPlugins: number
  lastPollAt: number | null
  pollDetections: number
}

export interface AuditSummary {
  totalInvocations: number
  successCount: number
  failureCount: number
  last24h: { total: number; success: number; failure: number }
  avgDurationMs: number
}

export interface HealthPayload {
  status: 'ok'
  version: string
  sdkVersion: string
  mode: 'dev' | 'production'
  httpEngine: EngineName
  extensionConnected: boolean
  /** The connected extension's running version (absent when none is connected, or it is too old to say). */
  extensionVersion?: string
  extensionConnections: number
  /**
   * When an extension last asked this daemon to prove itself (epoch ms): `provenAt` holding this
   * daemon's secret, `refusedAt` holding another (beyond the spec; absent from older daemons).
   */
  extensionSightings?: { provenAt?: number; refusedAt?: number }
  /** Distinct MCP clients (by name) with an open session. */
  mcpClients: number
  /** Open MCP sessions (beyond the spec: a client may hold several; absent from older daemons). */
  mcpSessions?: number
  plugins: number
  pluginDetails: PluginDetail[]
  failedPlugins: FailedPlugin[]
  toolCount: number
  browserToolCount: number
  pluginToolCount: number
  browserToolNames: string[]
  disabledBrowserTools: string[]
  skipPermissions: boolean
  /** Sites' own tools (WebMCP): every turned-on site and every site with tools open (`bridge site list`). */
  sites: SiteState[]
  /** Seconds since the daemon started. */
  uptime: number
  reloadCount: number
  lastReloadTimestamp: number
  lastReloadDurationMs: number
  stateSchemaVersion: number
  discoveryErrors: DiscoveryError[]
  /** Dev mode only. */
  fileWatcher?: FileWatcherHealth
  auditSummary: AuditSummary
  /** Whether audit.log is being written: `ok: false` with the disk's error while it refuses (full, read-only). */
  auditLog: AuditDiskStatus
  /** Only with BRIDGE_DIAGNOSTICS=1: what a leak test watches. */
  diagnostics?: Diagnostics
}

/** Process figures for leak tests (BRIDGE_DIAGNOSTICS=1); not part of the stable health payload. */
export interface Diagnostics {
  /** Children of the root actor system: pluginTab, mcpSession and toolInvocation actors. */
  actors: number
  /** Active timers (`Timeout` in process.getActiveResourcesInfo()). */
  timers: number
  /** Every active resource of the event loop, by kind. */
  resources: Record<string, number>
  rssBytes: number
  heapUsedBytes: number
  /** Memory outside the JS heap: buffers, queued socket data. */
  externalBytes: number
}

export function processDiagnostics(actors: number): Diagnostics {
  // Started with --expose-gc (a leak test does): measure what is still referenced, not garbage.
  ;(globalThis as { gc?: () => void }).gc?.()
  const resources: Record<string, number> = {}
  for (const kind of process.getActiveResourcesInfo()) resources[kind] = (resources[kind] ?? 0) + 1
  const memory = process.memoryUsage()
  return {
    actors,
    timers: resources.Timeout ?? 0,
    resources,
    rssBytes: memory.rss,
    heapUsedBytes: memory.heapUsed,
    externalBytes: memory.external,
  }
}

export function emptyAuditSummary(): AuditSummary {
  return {
    totalInvocations: 0,
    successCount: 0,
    failureCount: 0,
    last24h: { total: 0, success: 0, failure: 0 },
    avgDurationMs: 0,
  }
}

export function healthRoute(getHealth: () => HealthPayload): Route {
  return {
    path: '/health',
    auth: 'optional',
    methods: {
      GET: (_request, { authenticated }) => jsonResponse(authenticated ? getHealth() : { status: 'ok' }),
    },
  }
}
