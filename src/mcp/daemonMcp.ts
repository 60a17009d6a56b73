/**
 * The daemon's `/mcp` endpoint, built from the parts it answers with: each client's scope, the tool
 * call path (a site's tool marked as page content), the limits of config and environment.
 */
import type { ActorRefFrom } from 'xstate'
import type { bridgeSystemMachine } from '../../machines/bridgeSystemMachine'
import type { AuditLog } from '../audit'
import { pageTextOf } from '../catalog/pageText'
import type { ToolCatalog } from '../catalog/toolCatalog'
import type { ToolPathLimits } from '../calls/limits'
import { callTool, type ToolCallRequest } from '../calls/toolCalls'
import type { ToolOutcome } from '../../machines/toolInvocationMachine'
import type { ClientScopeGate } from '../config/clientScopeGate'
import type { Credentials } from '../config/credentials'
import { createRateLimiter } from '../http/rateLimit'
import { ENDED_SESSION_RATE_LIMIT_PER_MIN } from '../protocol'
import { markSiteOutcome } from '../sites/siteResult'
import { McpEndpoint, type McpEndpointDeps } from './mcpEndpoint'

export interface DaemonMcpParts {
  /** The started root actor: each call is its child. */
  root: ActorRefFrom<typeof bridgeSystemMachine>
  /** The daemon's stores it reads: the tool index, the audit log, the named MCP clients. */
  stores: { catalog: ToolCatalog; audit: AuditLog; credentials: Pick<Credentials, 'clients'> }
  scopes: ClientScopeGate
  limits: ToolPathLimits
  /**
   * The step after the result: sees every call's outcome once it is audited, with the request and its
   * context (src/workflows: recording, replay results), and may give the client a different result.
   */
  afterCall?(request: ToolCallRequest, outcome: ToolOutcome): ToolOutcome
  /** Hears each call's result as the client gets it (../guard: what was handed out). */
  handedOut?: McpEndpointDeps['handedOut']
}

export function createDaemonMcp(parts: DaemonMcpParts): McpEndpoint {
  const { root, limits } = parts
  const { catalog, audit, credentials } = parts.stores
  return new McpEndpoint({
    // Each client lists what its scope allows (clients.json, bridge client set).
    listToolsJson: (client) => parts.scopes.listedJson(client),
    callTool: async (request) => {
      // A site's tool answers with the page's content: marked as such (../sites/siteResult).
      const site = catalog.get(request.name)?.site
      const ran = await callTool({ system: root, catalog, audit }, request)
      const outcome = parts.afterCall ? parts.afterCall(request, ran) : ran
      return site ? markSiteOutcome(site, outcome) : outcome
    },
    resultMaxBytes: limits.resultMaxBytes,
    pageText: (name) => pageTextOf(catalog, name),
    hasOutputSchema: (name) => catalog.get(name)?.outputSchema !== undefined,
    ...(parts.handedOut ? { handedOut: parts.handedOut } : {}),
    approvalsInClient: (name) =>
      credentials.clients().some((client) => client.name === name && client.approvalsInClient === true),
    initializeLimiter: createRateLimiter({ limit: limits.mcpSessionsPerMinute }),
    sessionsPerMinute: limits.mcpSessionsPerMinute,
    endedSessionLimiter: createRateLimiter({ limit: ENDED_SESSION_RATE_LIMIT_PER_MIN }),
    maxSessions: limits.maxMcpSessions,
  })
}
