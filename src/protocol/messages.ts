/**
 * The WebSocket contract between the daemon and the extension: JSON-RPC 2.0 over text frames.
 * Each entry says who sends it and what it means. Both ends validate every inbound message against
 * these schemas. `Notifications` have no id and no answer; `Requests` have params and a result.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox'
import {
  type DiscoveryError,
  FailedPlugin,
  Permission,
  PluginState,
  TabInfo,
  TabStateName,
  ToolState,
} from './manifest'

const Ok = Type.Object({ ok: Type.Boolean() })
const Empty = Type.Object({})

export const Decision = Type.Union([
  Type.Literal('allow_once'),
  Type.Literal('allow_always'),
  Type.Literal('deny'),
])
export type Decision = Static<typeof Decision>

export const LogLevel = Type.Union([
  Type.Literal('debug'),
  Type.Literal('info'),
  Type.Literal('warning'),
  Type.Literal('error'),
])
export type LogLevel = Static<typeof LogLevel>

export const PluginTabs = Type.Object({ state: TabStateName, tabs: Type.Array(TabInfo) })
export type PluginTabs = Static<typeof PluginTabs>

/** The tab an approved call will run in, as the approval shows it. */
export const ApprovalTab = Type.Object({ tabId: Type.Integer(), title: Type.String(), url: Type.String() })
export type ApprovalTab = Static<typeof ApprovalTab>

export const ConfigState = Type.Object({
  plugins: Type.Array(PluginState),
  browserTools: Type.Array(ToolState),
  skipPermissions: Type.Boolean(),
  failedPlugins: Type.Array(FailedPlugin),
})
export type ConfigState = Static<typeof ConfigState>

/** Notifications the daemon sends to the extension. */
export const ServerNotifications = {
  /** On connect and after every reload: everything the extension needs to know. */
  'sync.full': Type.Object({
    protocolVersion: Type.Integer(),
    serverVersion: Type.String(),
    skipPermissions: Type.Boolean(),
    plugins: Type.Array(PluginState),
    browserTools: Type.Array(ToolState),
  }),
  /** Dev mode: one plugin's build changed on disk. */
  'plugin.update': PluginState,
  /** The set of plugins, their permissions or the skip flag changed; the side panel refreshes. */
  'plugins.changed': Type.Object({
    plugins: Type.Array(PluginState),
    failedPlugins: Type.Array(FailedPlugin),
  }),
  /** A tool call started running in the browser. */
  'tool.invocationStart': Type.Object({
    dispatchId: Type.String(),
    plugin: Type.String(),
    tool: Type.String(),
  }),
  /** A tool call finished (any outcome after dispatch). */
  'tool.invocationEnd': Type.Object({
    dispatchId: Type.String(),
    plugin: Type.String(),
    tool: Type.String(),
    success: Type.Boolean(),
    durationMs: Type.Integer(),
  }),
  /**
   * A call to an `ask` tool waits for the user's decision in the side panel. `client` names the MCP
   * client that asked (`cli`/`extension` for the built-in roles); `tab` is the tab the call will run
   * in, chosen before anyone is asked (absent for built-in tools, which run in the extension).
   */
  'confirmation.request': Type.Object({
    id: Type.String(),
    plugin: Type.String(),
    tool: Type.String(),
    params: Type.Unknown(),
    expiresAt: Type.Integer({ description: 'ms since epoch' }),
    client: Type.Optional(Type.String({ maxLength: 64 })),
    tab: Type.Optional(ApprovalTab),
  }),
  /** An approval request ended without the user (timeout, call cancelled): the panel drops it. */
  'confirmation.cancel': Type.Object({ id: Type.String(), reason: Type.String() }),
  /** POST /extension/reload: the extension reloads itself. */
  'extension.reload': Empty,
  /** Answer to `ping`. */
  pong: Type.Object({ ts: Type.Number() }),
} satisfies Record<string, TSchema>

/** Requests the daemon sends to the extension: [params, result]. */
export const ServerRequests = {
  /** A plugin was removed: the extension drops its adapter. */
  'plugin.uninstall': [Type.Object({ name: Type.String() }), Ok],
  /** Run a tool in the best matching tab. Errors: -32001 tab closed, -32002 unavailable, -32003 tool error. */
  'tool.dispatch': [
    Type.Object({
      dispatchId: Type.String(),
      plugin: Type.String(),
      tool: Type.String(),
      input: Type.Unknown(),
      tabId: Type.Optional(Type.Integer()),
      /** The MCP client that made the call (its name) and its session: tab groups per agent. */
      client: Type.Optional(Type.String({ maxLength: 64 })),
      session: Type.Optional(Type.String({ maxLength: 64 })),
    }),
    // `output` may be absent: a tool that returns nothing serializes to `{}`.
    Type.Object({ output: Type.Optional(Type.Unknown()) }),
  ],
} satisfies Record<string, [TSchema, TSchema]>

/** Notifications the extension sends to the daemon. */
export const ClientNotifications = {
  /** On connect: the state of every plugin's tabs. */
  'tab.syncAll': Type.Object({ plugins: Type.Record(Type.String(), PluginTabs) }),
  /** A running tool reported progress; re-arms the call's 30 s timeout. */
  'tool.progress': Type.Object({
    dispatchId: Type.String(),
    progress: Type.Number(),
    total: Type.Optional(Type.Number()),
    message: Type.Optional(Type.String()),
  }),
  /** Batched plugin log entries, forwarded to MCP clients as notifications/message. */
  'plugin.log': Type.Object({
    entries: Type.Array(
      Type.Object({
        plugin: Type.String(),
        level: LogLevel,
        message: Type.String(),
        data: Type.Optional(Type.Unknown()),
        ts: Type.Number(),
      }),
      { maxItems: 1000 },
    ),
  }),
  /** The user's decision on a `confirmation.request`. */
  'confirmation.response': Type.Object({ id: Type.String(), decision: Decision }),
  /** Keepalive; answered with `pong`. */
  ping: Type.Object({ ts: Type.Number() }),
} satisfies Record<string, TSchema>

const PluginResult = Type.Object({ ok: Type.Boolean(), plugin: Type.Optional(PluginState) })

/** Requests the extension sends to the daemon: [params, result]. */
export const ClientRequests = {
  /** One plugin's tab state changed. */
  'tab.stateChanged': [
    Type.Object({ plugin: Type.String(), state: TabStateName, tabs: Type.Array(TabInfo) }),
    Ok,
  ],
  'config.getState': [Empty, ConfigState],
  'config.setToolPermission': [
    Type.Object({ plugin: Type.String(), tool: Type.String(), permission: Permission }),
    Ok,
  ],
  'config.setPluginPermission': [Type.Object({ plugin: Type.String(), permission: Permission }), Ok],
  'config.setSkipPermissions': [Type.Object({ enabled: Type.Boolean() }), Ok],
  'config.markReviewed': [Type.Object({ plugin: Type.String(), version: Type.String() }), Ok],
  'plugin.search': [
    Type.Object({ query: Type.Optional(Type.String()) }),
    Type.Object({
      results: Type.Array(
        Type.Object({
          name: Type.String(),
          version: Type.String(),
          description: Type.String(),
          author: Type.String(),
        }),
      ),
    }),
  ],
  'plugin.install': [Type.Object({ name: Type.String() }), PluginResult],
  'plugin.updateFromRegistry': [Type.Object({ name: Type.String() }), PluginResult],
  'plugin.remove': [Type.Object({ name: Type.String() }), PluginResult],
  'plugin.removeBySpecifier': [Type.Object({ specifier: Type.String() }), PluginResult],
  'plugin.checkUpdates': [
    Empty,
    Type.Object({
      updates: Type.Array(
        Type.Object({ name: Type.String(), current: Type.String(), latest: Type.String() }),
      ),
    }),
  ],
  /** Open a folder on the host: only the config directory or a known local plugin's folder. */
  'folder.open': [Type.Object({ path: Type.String() }), Ok],
} satisfies Record<string, [TSchema, TSchema]>

export type ServerNotificationName = keyof typeof ServerNotifications
export type ServerRequestName = keyof typeof ServerRequests
export type ClientNotificationName = keyof typeof ClientNotifications
export type ClientRequestName = keyof typeof ClientRequests

export type NotificationParams<M extends Record<string, TSchema>, K extends keyof M> = Static<M[K]>
export type RequestParams<M extends Record<string, [TSchema, TSchema]>, K extends keyof M> = Static<M[K][0]>
export type RequestResult<M extends Record<string, [TSchema, TSchema]>, K extends keyof M> = Static<M[K][1]>

export type DiscoveryErrorShape = Static<typeof DiscoveryError>
