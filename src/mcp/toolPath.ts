import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js'
import type { ActorRefFrom } from 'xstate'
import type { bridgeSystemMachine } from '../../machines/bridgeSystemMachine'
import { AuditFile, AuditLog, parseAuditQuery, type AuditSummary } from '../audit'
import type { Config } from '../config/schema'
import type { EngineSocket } from '../http/engine'
import { createRateLimiter } from '../http/rateLimit'
import { errorResponse, jsonResponse } from '../http/responses'
import type { Route } from '../http/route'
import { log } from '../log'
import {
  ADMIN_RATE_LIMIT_PER_MIN,
  BRIDGE_VERSION,
  JsonRpcErrorCode,
  PROTOCOL_VERSION,
  SESSION_RATE_LIMIT_PER_MIN,
  type TabInfo,
  type TabStateName,
} from '../protocol'
import { browserToolStates, listTools, pluginStates, type CatalogSource } from '../ws/catalog'
import { createConfigMethods } from '../ws/configMethods'
import { ExtensionLink } from '../ws/extensionLink'
import { PluginLogs } from '../ws/pluginLogs'
import { RpcError } from '../ws/peer'
import type { ToolPathLimits } from './limits'
import { McpSessions } from './mcpSessions'
import { ToolCaller } from './toolCalls'
import { toCallToolResult } from './toolResults'

const logger = log.withTag('tools')

export interface ToolPathDeps {
  /** Where audit.log lives (the config directory). */
  auditDir: string
  catalog: CatalogSource
  updateConfig(mutate: (current: Config) => Config): Promise<unknown>
  limits: ToolPathLimits
  /** Dev mode: a rebuilt plugin is announced with `plugin.update`, so its open tabs reload. */
  devMode?: boolean
  /** Extension requests owned elsewhere (plugin.*, folder.open): method -> handler. */
  extraMethods?: Record<string, (params: unknown) => Promise<unknown>>
}

type BridgeSystemRef = ActorRefFrom<typeof bridgeSystemMachine>

export interface ToolPath {
  /** The socket effects of the root system's extensionConnection actor, for `.provide()`. */
  extensionConnection: ExtensionLink['connectionEffects']
  /** Takes the started root system: pluginTab, mcpSession and toolInvocation actors run as its children. */
  attach(system: BridgeSystemRef): void
  routes: Route[]
  openExtensionSocket(socket: EngineSocket): void
  health(): {
    extensionConnected: boolean
    extensionConnections: number
    mcpClients: number
    auditSummary: AuditSummary
  }
  tabState(plugin: string): { tabState: TabStateName; tabs: TabInfo[] }
  /** Entries in the plugin's log ring buffer (health `logBufferSize`). */
  logBufferSize(plugin: string): number
  /** The plugin set changed (reload): pluginTab actors, sync.full, tools/list_changed. */
  pluginsReloaded(): void
  /** Permissions or the skip flag changed outside the extension (CLI, file edit): plugins.changed, list_changed. */
  configChanged(): void
  /** auth.json holds a new secret: extension sockets opened with the old one are closed. */
  secretRotated(): void
  stop(): Promise<void>
}

/** The tool call path: /ws, /mcp, approvals, audit, and the routes /audit and /extension/reload. */
export function createToolPath(deps: ToolPathDeps): ToolPath {
  const { catalog, limits } = deps
  const auditFile = new AuditFile({ dir: deps.auditDir, rotateBytes: limits.auditRotateBytes })
  const audit = new AuditLog({
    file: auditFile,
    onWriteError: (error) => logger.error('could not write audit.log:', error),
  })

  let root: BridgeSystemRef | undefined
  const system = (): BridgeSystemRef => {
    if (!root) throw new Error('the tool path is not attached to the actor system yet')
    return root
  }
  const pluginLogs = new PluginLogs()
  /** Adapter hash per plugin as last announced, to tell which plugins a reload rebuilt. */
  let builds = new Map(catalog.plugins().map((p) => [p.name, p.adapterHash]))
  const configChanged = () => {
    link.notify('plugins.changed', { plugins: pluginStates(catalog), failedPlugins: catalog.failedPlugins() })
    sessions.toolsChanged()
  }
  const configMethods = createConfigMethods({
    catalog,
    updateConfig: (mutate) => deps.updateConfig(mutate),
    onChanged: configChanged,
  })
  const methods = { ...deps.extraMethods, ...configMethods }

  const syncFull = () => ({
    protocolVersion: PROTOCOL_VERSION,
    serverVersion: BRIDGE_VERSION,
    skipPermissions: catalog.skipPermissions(),
    plugins: pluginStates(catalog),
    browserTools: browserToolStates(catalog),
  })
  const link: ExtensionLink = new ExtensionLink({
    keepaliveTimeoutMs: limits.keepaliveTimeoutMs,
    syncFull,
    handleRequest: (method, params) => {
      const handler = Object.hasOwn(methods, method) ? methods[method] : undefined
      if (!handler)
        return Promise.reject(new RpcError(JsonRpcErrorCode.methodNotFound, `Method not found: ${method}`))
      return handler(params)
    },
    onProgress: ({ dispatchId, progress, total, message }) =>
      caller.progress(dispatchId, {
        progress,
        ...(total === undefined ? {} : { total }),
        ...(message === undefined ? {} : { message }),
      }),
    onConfirmation: ({ id, decision }) => caller.decide(id, decision),
    onPluginLog: ({ entries }) => {
      pluginLogs.add(entries)
      for (const entry of entries)
        sessions.log(
          entry.level,
          `plugin:${entry.plugin}`,
          entry.data === undefined ? entry.message : { message: entry.message, data: entry.data },
        )
    },
    onConnectionLost: () => caller.extensionLost(),
  })

  const caller: ToolCaller = new ToolCaller({
    system,
    catalog,
    link,
    audit,
    limits,
    updateConfig: (mutate) => deps.updateConfig(mutate),
    onConfigChanged: configChanged,
  })

  const listForAgents = (): Tool[] =>
    listTools(catalog)
      .filter((tool) => tool.permission !== 'off')
      .map((tool) => ({
        name: tool.fullName,
        description: tool.permission === 'ask' ? `[asks for approval] ${tool.description}` : tool.description,
        // MCP requires an object schema at the top; plugin schemas are objects, this keeps a stray one listable.
        inputSchema: { ...tool.inputSchema, type: 'object' },
      }))

  const sessions: McpSessions = new McpSessions({
    system,
    listTools: listForAgents,
    callTool: async (request): Promise<CallToolResult> =>
      toCallToolResult(await caller.call(request), limits.resultMaxBytes),
    initializeLimiter: createRateLimiter({ limit: SESSION_RATE_LIMIT_PER_MIN }),
    maxSessions: limits.maxMcpSessions,
  })

  const mcpHandler = (request: Request) => sessions.handle(request)
  const routes: Route[] = [
    {
      path: '/mcp',
      auth: 'required',
      clientTokens: true,
      methods: { POST: mcpHandler, GET: mcpHandler, DELETE: mcpHandler },
    },
    {
      path: '/audit',
      auth: 'required',
      methods: {
        GET: (_request, { url }) => {
          const query = parseAuditQuery(url.searchParams)
          if (!query.ok) return errorResponse('bad_request', query.message)
          return jsonResponse(audit.query(query.value))
        },
      },
    },
    {
      path: '/extension/reload',
      auth: 'required',
      rateLimit: createRateLimiter({ limit: ADMIN_RATE_LIMIT_PER_MIN }),
      methods: {
        POST: () => {
          if (!link.notify('extension.reload', {}))
            return errorResponse('extension_not_connected', 'no extension is connected')
          return jsonResponse({ ok: true }, 202)
        },
      },
    },
  ]

  return {
    extensionConnection: link.connectionEffects,
    attach: (started) => {
      root = started
      link.attach(started)
      link.syncPlugins(catalog.plugins().map((p) => p.name))
    },
    routes,
    openExtensionSocket: (socket) => link.open(socket),
    health: () => ({
      extensionConnected: link.connected,
      extensionConnections: link.connected ? 1 : 0,
      mcpClients: sessions.count,
      auditSummary: audit.summary(),
    }),
    tabState: (plugin) => {
      const tab = link.tab(plugin)
      return { tabState: tab?.state ?? 'closed', tabs: tab?.tabs ?? [] }
    },
    logBufferSize: (plugin) => pluginLogs.size(plugin),
    pluginsReloaded: () => {
      link.syncPlugins(catalog.plugins().map((p) => p.name))
      const states = pluginStates(catalog)
      if (deps.devMode)
        for (const state of states)
          if (builds.has(state.name) && builds.get(state.name) !== state.adapterHash)
            link.notify('plugin.update', state)
      builds = new Map(states.map((state) => [state.name, state.adapterHash]))
      link.notify('sync.full', syncFull())
      link.notify('plugins.changed', {
        plugins: pluginStates(catalog),
        failedPlugins: catalog.failedPlugins(),
      })
      sessions.toolsChanged()
    },
    configChanged,
    secretRotated: () => link.secretRotated(),
    async stop() {
      await sessions.closeAll()
      link.stop()
      await auditFile.close()
    },
  }
}
