/**
 * The WebSocket contract between the daemon and the extension: JSON-RPC 2.0 over text frames, one
 * table of methods (`WsMethods`). Each entry says who sends it and what it means.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox'
import {
  type DiscoveryError,
  FailedPlugin,
  Permission,
  PluginState,
  TabInfo,
  TabStateName,
  ToolAnnotations,
  ToolState,
} from './manifest'
import { SiteState, SitesReport } from './siteTools'
import { WorkflowPanelMethods } from './workflowPanel'

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

/**
 * A call that would carry what the client read on one site to another (the data-flow guard): what
 * would flow, masked, from where to where. On a `confirmation.request` it makes the question a flow
 * question: "allow always" then allows these flows for this client, never the tool.
 */
export const ApprovalFlow = Type.Object({
  flows: Type.Array(
    Type.Object({
      from: Type.String({ maxLength: 2100 }),
      to: Type.String({ maxLength: 2100 }),
      kind: Type.Union([
        Type.Literal('token'),
        Type.Literal('email'),
        Type.Literal('number'),
        Type.Literal('text'),
      ]),
      /** The value as the user may see it: `j***@corp.example`. */
      masked: Type.String({ maxLength: 300 }),
    }),
    { minItems: 1, maxItems: 16 },
  ),
})
export type ApprovalFlow = Static<typeof ApprovalFlow>

export const ConfigState = Type.Object({
  plugins: Type.Array(PluginState),
  browserTools: Type.Array(ToolState),
  skipPermissions: Type.Boolean(),
  failedPlugins: Type.Array(FailedPlugin),
})
export type ConfigState = Static<typeof ConfigState>

const PluginResult = Type.Object({ ok: Type.Boolean(), plugin: Type.Optional(PluginState) })

/** Who may call a method: the daemon or the extension (the only peer on /ws, see DESIGN.md section 6). */
export type WsRole = 'daemon' | 'extension'

export interface WsNotificationDef<P extends TSchema = TSchema> {
  role: WsRole
  params: P
}
export interface WsRequestDef<P extends TSchema = TSchema, R extends TSchema = TSchema> {
  role: WsRole
  params: P
  result: R
}

const notification = <R extends WsRole, P extends TSchema>(role: R, params: P) => ({ role, params })
const request = <R extends WsRole, P extends TSchema, Q extends TSchema>(role: R, params: P, result: Q) => ({
  role,
  params,
  result,
})

/**
 * Every /ws method, in one table: its name, who may call it (`role`), its params and, for a request,
 * its result. A notification has no id and no answer. Both ends validate every inbound message
 * against these schemas. Adding a method here makes the daemon's handler table (src/ws/methods.ts)
 * fail to type-check until the method has a handler, when the extension may call it.
 */
export const WsMethods = {
  /** On connect and after every reload: everything the extension needs to know. */
  'sync.full': notification(
    'daemon',
    Type.Object({
      protocolVersion: Type.Integer(),
      serverVersion: Type.String(),
      skipPermissions: Type.Boolean(),
      plugins: Type.Array(PluginState),
      browserTools: Type.Array(ToolState),
      /** Sites' own tools (WebMCP): the sites the user turned on, and every site with tools open now. */
      sites: Type.Optional(Type.Array(SiteState)),
    }),
  ),
  /** A site's permissions or its declared tools changed: the extension watches the turned-on sites. */
  'sites.changed': notification('daemon', Type.Object({ sites: Type.Array(SiteState) })),
  /** Dev mode: one plugin's build changed on disk. */
  'plugin.update': notification('daemon', PluginState),
  /** The set of plugins, their permissions or the skip flag changed; the side panel refreshes. */
  'plugins.changed': notification(
    'daemon',
    Type.Object({
      plugins: Type.Array(PluginState),
      failedPlugins: Type.Array(FailedPlugin),
      /**
       * The built-in tools with their effective permissions: a permission change reaches the panel,
       * and the extension refuses a dispatch for a tool that is off by it.
       */
      browserTools: Type.Optional(Type.Array(ToolState)),
      skipPermissions: Type.Optional(Type.Boolean()),
    }),
  ),
  /** A tool call started running in the browser. */
  'tool.invocationStart': notification(
    'daemon',
    Type.Object({
      dispatchId: Type.String(),
      plugin: Type.String(),
      tool: Type.String(),
    }),
  ),
  /** A tool call finished (any outcome after dispatch). */
  'tool.invocationEnd': notification(
    'daemon',
    Type.Object({
      dispatchId: Type.String(),
      plugin: Type.String(),
      tool: Type.String(),
      success: Type.Boolean(),
      durationMs: Type.Integer(),
    }),
  ),
  /**
   * An audit entry was recorded: any call's end, including those that never ran (denied, timed out
   * waiting for approval, refused). The side panel refreshes its Recent activity.
   */
  'audit.recorded': notification('daemon', Type.Object({ tool: Type.String(), success: Type.Boolean() })),
  /** A call to an `ask` tool waits for the user's decision in the side panel. */
  'confirmation.request': notification(
    'daemon',
    Type.Object({
      id: Type.String(),
      plugin: Type.String(),
      tool: Type.String(),
      params: Type.Unknown(),
      expiresAt: Type.Integer({ description: 'ms since epoch' }),
      /** The MCP client that asked (`cli`/`extension` for the built-in roles). */
      client: Type.String({ maxLength: 64 }),
      /** The tab the call will run in, chosen before anyone is asked (absent for built-in tools). */
      tab: Type.Optional(ApprovalTab),
      /** False when "Always allow" would not set the tool to auto (running code in pages): not offered. */
      allowAlways: Type.Optional(Type.Boolean()),
      /** What the client may use, in words (src/config/clientScopes.ts describeScope), when it is limited. */
      scope: Type.Optional(Type.Array(Type.String({ maxLength: 300 }), { maxItems: 8 })),
      /** The tool's name for people (a plugin's displayName, a built-in's title); absent for a site's own tool. */
      title: Type.Optional(Type.String({ maxLength: 200 })),
      /**
       * What the tool declares about itself (MCP annotations: read-only, destructive...), shown on the
       * card so the user decides knowing it; a hint only, it changed nothing about the call's permission.
       * For a site's own tool: the hints of the declaration the call was checked with (the site's claims).
       */
      annotations: Type.Optional(ToolAnnotations),
      /** A workflow's whole plan in words (origins, every step, the values): one card covers its steps. */
      plan: Type.Optional(Type.Array(Type.String({ maxLength: 2000 }), { maxItems: 600 })),
      /** Present when the question is the data-flow guard's: what would flow, from which site to which. */
      flow: Type.Optional(ApprovalFlow),
    }),
  ),
  /** An approval request ended without the user (timeout, call cancelled): the panel drops it. */
  'confirmation.cancel': notification('daemon', Type.Object({ id: Type.String(), reason: Type.String() })),
  /** POST /extension/reload: the extension reloads itself. */
  'extension.reload': notification('daemon', Empty),
  /** Answer to `ping`. */
  pong: notification('daemon', Type.Object({ ts: Type.Number() })),
  /** A plugin was removed: the extension drops its adapter. */
  'plugin.uninstall': request('daemon', Type.Object({ name: Type.String() }), Ok),
  /** Run a tool in the best matching tab. Errors: -32001 tab closed, -32002 unavailable, -32003 tool error. */
  'tool.dispatch': request(
    'daemon',
    Type.Object({
      dispatchId: Type.String(),
      plugin: Type.String(),
      tool: Type.String(),
      input: Type.Unknown(),
      tabId: Type.Optional(Type.Integer()),
      /** With tabId: the origin the tab showed in the approval; the call runs in no document of another. */
      origin: Type.Optional(Type.String({ maxLength: 2100 })),
      /** The MCP client that made the call (its name) and its session: tab groups per agent. */
      client: Type.Optional(Type.String({ maxLength: 64 })),
      session: Type.Optional(Type.String({ maxLength: 64 })),
      /**
       * A site's own tool: the hash of the declaration the call was checked (and approved) with. The
       * page side runs the tool only while its declaration still hashes to it (`declaration_changed`).
       */
      declared: Type.Optional(Type.String({ pattern: '^[0-9a-f]{64}$' })),
    }),
    // `output` may be absent: a tool that returns nothing serializes to `{}`.
    Type.Object({
      output: Type.Optional(Type.Unknown()),
      /** The origins the output was read from (the page's, before and after the call): its data-flow labels. */
      origins: Type.Optional(Type.Array(Type.String({ maxLength: 2100 }), { maxItems: 8 })),
    }),
  ),
  /**
   * Which origin a call would act on (the data-flow guard, before dispatch): the tab it names or would
   * choose. The extension pins that origin for the call (its dispatchId): it then runs there or not at all.
   */
  'tool.sinkOrigin': request(
    'daemon',
    Type.Object({
      dispatchId: Type.String(),
      plugin: Type.String(),
      tool: Type.String(),
      input: Type.Unknown(),
      client: Type.Optional(Type.String({ maxLength: 64 })),
      session: Type.Optional(Type.String({ maxLength: 64 })),
    }),
    Type.Object({ origin: Type.Optional(Type.String({ maxLength: 2100 })) }),
  ),
  /**
   * The origin a tab shows (the data-flow guard, before a workflow run that writes before navigating):
   * the tab named, or the active one a run would start in. No origin: the tab is closed or unknown, or
   * shows no web page. With a dispatchId the extension pins that origin for the call, as tool.sinkOrigin does.
   */
  'tab.origin': request(
    'daemon',
    Type.Object({
      tabId: Type.Optional(Type.Integer({ minimum: 0 })),
      dispatchId: Type.Optional(Type.String({ maxLength: 200 })),
    }),
    Type.Object({ origin: Type.Optional(Type.String({ maxLength: 2100 })) }),
  ),
  /** On connect: the state of every plugin's tabs. */
  'tab.syncAll': notification(
    'extension',
    Type.Object({
      plugins: Type.Record(Type.String(), PluginTabs),
      /** The running extension's version (an older one after `bridge update` until it is reloaded). */
      extensionVersion: Type.Optional(Type.String({ pattern: '^[0-9A-Za-z.+-]{1,64}$' })),
    }),
  ),
  /** A running tool reported progress; re-arms the call's 30 s timeout. */
  'tool.progress': notification(
    'extension',
    Type.Object({
      dispatchId: Type.String(),
      progress: Type.Number(),
      total: Type.Optional(Type.Number()),
      message: Type.Optional(Type.String()),
    }),
  ),
  /**
   * Batched plugin log entries. An entry written during a call carries that call's `dispatchId` and
   * reaches only the MCP client that made the call (notifications/message); one without (written
   * outside any call, or by a page the call does not run in) goes to the daemon's log only.
   */
  'plugin.log': notification(
    'extension',
    Type.Object({
      entries: Type.Array(
        Type.Object({
          plugin: Type.String(),
          dispatchId: Type.Optional(Type.String({ maxLength: 100 })),
          level: LogLevel,
          message: Type.String(),
          data: Type.Optional(Type.Unknown()),
          ts: Type.Number(),
        }),
        { maxItems: 1000 },
      ),
    }),
  ),
  /** The tools that pages of turned-on sites declare now (WebMCP), in full, after any change. */
  'sites.report': notification('extension', SitesReport),
  /** The user's decision on a `confirmation.request`. */
  'confirmation.response': notification('extension', Type.Object({ id: Type.String(), decision: Decision })),
  /** Keepalive; answered with `pong`. */
  ping: notification('extension', Type.Object({ ts: Type.Number() })),
  /** One plugin's tab state changed. */
  'tab.stateChanged': request(
    'extension',
    Type.Object({ plugin: Type.String(), state: TabStateName, tabs: Type.Array(TabInfo) }),
    Ok,
  ),
  'config.getState': request('extension', Empty, ConfigState),
  'config.setToolPermission': request(
    'extension',
    Type.Object({ plugin: Type.String(), tool: Type.String(), permission: Permission }),
    Ok,
  ),
  'config.setPluginPermission': request(
    'extension',
    Type.Object({ plugin: Type.String(), permission: Permission }),
    Ok,
  ),
  /**
   * A site's default permission (no `tool`), or one of its tools' (`tool` is the declared name; ask
   * and auto bind the declaration the user saw, `hash`, and lapse when the site changes it).
   */
  'config.setSitePermission': request(
    'extension',
    Type.Object({
      origin: Type.String({ maxLength: 300 }),
      tool: Type.Optional(Type.String({ maxLength: 128 })),
      permission: Permission,
    }),
    Ok,
  ),
  'config.setSkipPermissions': request('extension', Type.Object({ enabled: Type.Boolean() }), Ok),
  'config.markReviewed': request(
    'extension',
    Type.Object({ plugin: Type.String(), version: Type.String() }),
    Ok,
  ),
  'plugin.search': request(
    'extension',
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
  ),
  'plugin.install': request('extension', Type.Object({ name: Type.String() }), PluginResult),
  'plugin.updateFromRegistry': request('extension', Type.Object({ name: Type.String() }), PluginResult),
  'plugin.remove': request('extension', Type.Object({ name: Type.String() }), PluginResult),
  'plugin.removeBySpecifier': request('extension', Type.Object({ specifier: Type.String() }), PluginResult),
  'plugin.checkUpdates': request(
    'extension',
    Empty,
    Type.Object({
      updates: Type.Array(
        Type.Object({ name: Type.String(), current: Type.String(), latest: Type.String() }),
      ),
    }),
  ),
  /** Open a folder on the host: only the config directory or a known local plugin's folder. */
  'folder.open': request('extension', Type.Object({ path: Type.String() }), Ok),
  /**
   * A running workflow's `tool` step (a plugin's or a site's tool): the daemon makes the call its plan
   * holds for that step, as the run's client, through the path every call takes (scope, permission,
   * approval, the data-flow guard, audit). `run` is the id the plan carried; the extension names only
   * the step, never the tool or its input.
   */
  'workflow.toolStep': request(
    'extension',
    Type.Object({ run: Type.String({ maxLength: 64 }), step: Type.Integer({ minimum: 1 }) }),
    Type.Object({
      ok: Type.Boolean(),
      output: Type.Optional(Type.Unknown()),
      error: Type.Optional(Type.Object({ code: Type.String(), message: Type.String() })),
    }),
  ),
  ...WorkflowPanelMethods,
} satisfies Record<string, WsNotificationDef | WsRequestDef>

type Methods = typeof WsMethods
type NotificationsOf<R extends WsRole> = {
  [
    K in keyof Methods as Methods[K] extends { role: R; result: TSchema }
      ? never
      : Methods[K] extends { role: R }
        ? K
        : never
  ]: Methods[K]['params']
}
type RequestsOf<R extends WsRole> = {
  [K in keyof Methods as Methods[K] extends { role: R; result: TSchema } ? K : never]: Methods[K] extends {
    params: infer P
    result: infer Q
  }
    ? [P, Q]
    : never
}

function pick(role: WsRole, kind: 'notification' | 'request'): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [name, def] of Object.entries(WsMethods) as [string, WsNotificationDef | WsRequestDef][])
    if (def.role === role && 'result' in def === (kind === 'request'))
      out[name] = 'result' in def ? [def.params, def.result] : def.params
  return out
}

/** Notifications the daemon sends to the extension: method -> params. */
export const ServerNotifications = pick('daemon', 'notification') as NotificationsOf<'daemon'>
/** Requests the daemon sends to the extension: method -> [params, result]. */
export const ServerRequests = pick('daemon', 'request') as RequestsOf<'daemon'>
/** Notifications the extension sends to the daemon: method -> params. */
export const ClientNotifications = pick('extension', 'notification') as NotificationsOf<'extension'>
/** Requests the extension sends to the daemon: method -> [params, result]. */
export const ClientRequests = pick('extension', 'request') as RequestsOf<'extension'>

export type ServerNotificationName = keyof typeof ServerNotifications
export type ServerRequestName = keyof typeof ServerRequests
export type ClientNotificationName = keyof typeof ClientNotifications
export type ClientRequestName = keyof typeof ClientRequests

export type NotificationParams<M extends Record<string, TSchema>, K extends keyof M> = Static<M[K]>
export type RequestParams<M extends Record<string, readonly [TSchema, TSchema]>, K extends keyof M> = Static<
  M[K][0]
>
export type RequestResult<M extends Record<string, readonly [TSchema, TSchema]>, K extends keyof M> = Static<
  M[K][1]
>

export type DiscoveryErrorShape = Static<typeof DiscoveryError>

/**
 * What the side panel shows for a call waiting for approval (the `confirmation.request` params); a
 * client the user trusts to show approvals is asked the same question (src/mcp/clientApproval.ts).
 */
export type ApprovalRequest = NotificationParams<typeof ServerNotifications, 'confirmation.request'>
