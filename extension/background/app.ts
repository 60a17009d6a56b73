/**
 * The service worker's composition: the daemon connection, the tab tracker, dispatch, approvals, the
 * log relay and the side panel hub, and how daemon messages move between them. Everything here is
 * rebuilt from scratch when Chrome restarts the worker: tabs are re-read, the socket reconnects, and
 * `sync.full` brings back the plugins.
 */
import { BRIDGE_VERSION, BROWSER_PLUGIN, PROTOCOL_VERSION } from '../../src/protocol/constants'
import type { ClientRequestName, FailedPlugin, ServerNotifications, ToolState } from '../../src/protocol'
import type { Static } from '@sinclair/typebox'
import type { PanelCommand, PanelReply, PanelState } from '../shared/panelTypes'
import { builtinTabOf, configureBuiltins, recordExtensionLog } from '../builtins'
import { sinkOriginOf, tabOriginOf } from './sinkOrigin'
import { forgetApprovedTab, pinApprovedTab } from '../builtins/approvedTabs'
import { AdapterScripts } from './adapterScripts'
import { AuditWitness } from './auditWitness'
import { ApprovalQueue } from './approvals'
import { DaemonConnection } from './connection'
import { protocolNotice } from './versionNotices'
import type { ClientParams, ClientResult } from './rpc'
import { dispatchTool, runningDispatches } from './dispatcher'
import { proveDaemon } from './daemonProof'
import { daemonBaseUrl, readDaemonAddress } from './localFiles'
import { LogRelay, RateWindow, type LogEntry } from './logRelay'
import { runNotification, runRequest, type DaemonMethods } from './methods'
import { PanelHub } from './panelHub'
import { TabTracker } from './tabTracker'
import { isSiteKey, SiteTools } from './siteTools'
import { PersonRecorder } from '../recorder/personRecorder'
import { isWorkflowCommand, workflowCommand } from './workflowPanel'

/** Progress reports a plugin's pages may send per second; more are dropped (each extends a call's timeout). */
const PROGRESS_PER_SECOND = 20
/** The daemon gives npm 30 s for a search or version lookup. */
const REGISTRY_QUERY_TIMEOUT_MS = 45_000
/** An install may take npm 5 min, and as long again to put the previous version back. */
const REGISTRY_CHANGE_TIMEOUT_MS = 11 * 60_000
/** A workflow's tool step: the call, and an approval the user may take a while to answer. */
const TOOL_STEP_TIMEOUT_MS = 11 * 60_000

type Notif<K extends keyof typeof ServerNotifications> = Static<(typeof ServerNotifications)[K]>

export class BackgroundApp {
  readonly tracker: TabTracker
  readonly connection: DaemonConnection
  readonly approvals: ApprovalQueue
  readonly panels: PanelHub
  /** Sites' own tools (WebMCP), for the sites the user turned on. */
  readonly sites: SiteTools
  /** The audit log's witness: checked on every connect and every side-panel open. */
  readonly auditWitness: AuditWitness
  /** A person's demonstration recorded from the panel. */
  readonly recorder: PersonRecorder
  private workflowsRevision = 0
  private readonly logs: LogRelay
  private readonly progressRate = new RateWindow(PROGRESS_PER_SECOND)
  private browserTools: ToolState[] = []
  private failedPlugins: FailedPlugin[] = []
  private skipPermissions = false
  private synced = false
  private auditRevision = 0
  private readonly running = new Map<
    string,
    { dispatchId: string; plugin: string; tool: string; startedAt: number }
  >()
  readonly ready: Promise<void>
  private readonly methods = this.daemonMethods()

  constructor() {
    this.panels = new PanelHub(() => this.panelState())
    this.auditWitness = new AuditWitness(
      (path) => this.daemonGet(path),
      () => this.panels.publish(),
      (message) => recordExtensionLog('warning', message),
    )
    this.approvals = new ApprovalQueue(() => this.panels.publish())
    this.recorder = new PersonRecorder(
      () => this.panels.publish(),
      (message) => recordExtensionLog('warning', message),
    )
    this.tracker = new TabTracker(
      (plugin, tabs) => {
        this.panels.publish()
        const peer = this.connection.current
        if (peer && this.synced) peer.request('tab.stateChanged', { plugin, ...tabs }).catch(() => undefined)
      },
      new AdapterScripts((message) => recordExtensionLog('warning', message)),
    )
    this.sites = new SiteTools(
      (report) => {
        const peer = this.connection.current
        if (!peer || !this.synced) return false
        peer.notify('sites.report', report)
        return true
      },
      () => this.panels.publish(),
    )
    this.logs = new LogRelay((entries) => {
      const peer = this.connection.current
      if (!peer || !this.synced) return false
      peer.notify('plugin.log', { entries })
      return true
    })
    this.connection = new DaemonConnection({
      onConnected: () => {
        this.synced = false
        this.tracker.resetReported()
      },
      onDisconnected: () => {
        this.synced = false
        this.running.clear()
        this.approvals.clear()
        this.panels.publish()
      },
      onStatus: (view) => {
        recordExtensionLog(
          view.status === 'connected' || view.status === 'connecting' ? 'info' : 'warning',
          `connection: ${view.message}`,
        )
        this.panels.publish()
      },
      onNotification: (method, params) => runNotification(this.methods, method, params),
      onRequest: (method, params) => runRequest(this.methods, method, params),
      onProblem: (message) => recordExtensionLog('warning', `daemon message ignored: ${message}`),
    })
    configureBuiltins({
      reconnect: () => this.connection.reconnectNow(),
      getState: () => {
        const s = this.panelState()
        return {
          connection: {
            status: s.connection.status,
            message: s.connection.message,
            port: s.connection.port,
            serverVersion: s.connection.serverVersion,
          },
          skipPermissions: s.skipPermissions,
          plugins: s.plugins.map((p) => ({
            name: p.name,
            version: p.version,
            tabState: p.tabState,
            tabs: p.tabs,
          })),
          approvalsWaiting: s.approvals.length,
          running: s.running.length,
        }
      },
      // Asked fresh: sync.full's copy is not updated when a browser tool's permission changes.
      toolPermission: async (tool) => {
        const state = await this.connection.current?.request('config.getState', {})
        return state?.browserTools.find((t) => t.name === tool)?.permission
      },
    })
    this.ready = this.tracker.load().then(() => this.connection.ensure())
  }

  // ---- from the daemon --------------------------------------------------------------------------

  /**
   * The handler table for everything the daemon sends (./methods.ts): typed from src/protocol, so a
   * method the protocol names with no handler here fails to compile.
   */
  private daemonMethods(): DaemonMethods {
    return {
      notifications: {
        'sync.full': (p) => void this.onSyncFull(p),
        'plugin.update': (p) => void this.tracker.updatePlugin(p).then(() => this.panels.publish()),
        'plugins.changed': (p) => {
          // Also sent when a workflow file changed (a recording, the CLI, a healed step).
          this.workflowsRevision++
          this.failedPlugins = p.failedPlugins
          if (p.browserTools) this.browserTools = p.browserTools
          if (p.skipPermissions !== undefined) this.skipPermissions = p.skipPermissions
          void this.tracker.setPlugins(p.plugins).then(() => this.panels.publish())
          this.panels.publish()
        },
        'confirmation.request': (p) => {
          const plugin = this.tracker.plugin(p.plugin)
          if (p.plugin !== BROWSER_PLUGIN || p.tab) {
            const site = isSiteKey(p.plugin)
            const pluginDisplayName = site ? `declared by ${p.plugin}` : (plugin?.displayName ?? p.plugin)
            this.approvals.add({ ...p, pluginDisplayName, ...(site ? { declaredBy: p.plugin } : {}) })
            return
          }
          // A built-in names no tab to the daemon: the card shows the one it would act on, pinned.
          void builtinTabOf(p.tool, p.params)
            .then((tab) => (tab ? pinApprovedTab(p.id, tab) : undefined))
            .catch(() => undefined)
            .then((tab) =>
              this.approvals.add({
                ...p,
                pluginDisplayName: 'Built-in browser tools',
                ...(tab ? { tab } : {}),
              }),
            )
        },
        'sites.changed': (p) => this.sites.setSites(p.sites),
        'confirmation.cancel': (p) => {
          this.approvals.remove(p.id)
          void forgetApprovedTab(p.id)
        },
        'tool.invocationStart': (p) => {
          this.running.set(p.dispatchId, { ...p, startedAt: Date.now() })
          this.panels.publish()
        },
        'tool.invocationEnd': (p) => {
          this.running.delete(p.dispatchId)
          this.panels.publish()
        },
        // Any recorded call, also one that never ran (denied, approval timed out): Recent activity refreshes.
        'audit.recorded': () => {
          this.auditRevision++
          this.panels.publish()
        },
        'extension.reload': () => chrome.runtime.reload(),
        pong: () => undefined,
      },
      requests: {
        'tool.dispatch': (params) =>
          // A site's own tool (WebMCP): its plugin field is the site's origin (./siteTools.ts).
          isSiteKey(params.plugin)
            ? this.sites.dispatch(params)
            : dispatchTool(params, this.tracker, this.browserTools, {
                progress: (dispatchId, progress, total, message) =>
                  this.sendProgress(dispatchId, progress, total, message),
                log: (dispatchId, plugin, level, message, data) =>
                  this.logs.add({ plugin, dispatchId, level, message, data, ts: Date.now() }),
                beforeResult: () => this.logs.flush(),
                // A tool step may wait for its own approval: as long as a call may.
                toolStep: (run, step) => this.ask('workflow.toolStep', { run, step }, TOOL_STEP_TIMEOUT_MS),
              }),
        'tool.sinkOrigin': (params) => sinkOriginOf(params, this.tracker),
        'tab.origin': (params) => tabOriginOf(params),
        'plugin.uninstall': (params) => {
          this.tracker.removePlugin(params.name)
          this.panels.publish()
          return Promise.resolve({ ok: true })
        },
      },
    }
  }

  private async onSyncFull(p: Notif<'sync.full'>): Promise<void> {
    if (p.protocolVersion !== PROTOCOL_VERSION) {
      const notice = protocolNotice(
        { protocol: p.protocolVersion, version: p.serverVersion },
        { protocol: PROTOCOL_VERSION, version: BRIDGE_VERSION },
      )
      this.connection.park('protocolMismatch', notice.message, notice.fix)
      return
    }
    this.connection.setServerVersion(p.serverVersion)
    this.skipPermissions = p.skipPermissions
    this.browserTools = p.browserTools
    await this.tracker.setPlugins(p.plugins)
    if (p.sites) this.sites.setSites(p.sites)
    const peer = this.connection.current
    if (!peer) return
    peer.notify('tab.syncAll', { plugins: this.tracker.snapshot(), extensionVersion: BRIDGE_VERSION })
    this.synced = true
    this.sites.sendReport()
    this.logs.flush()
    this.panels.publish()
    void this.auditWitness.check()
  }

  // ---- from pages (the content-script relay) ----------------------------------------------------

  /** A page tried to open a second channel as `plugin` in tab `tabId`: refused by content.js. */
  channelRefused(tabId: number, plugin: unknown): void {
    recordExtensionLog(
      'warning',
      `tab ${tabId}: a page tried to open another adapter channel as plugin ${JSON.stringify(String(plugin).slice(0, 64))}; refused`,
    )
  }

  /**
   * An adapter event relayed by content.js from tab `tabId`. `plugin` is the channel's (content.js
   * tags it); events count only from a document whose channel for that plugin is trusted.
   */
  adapterEvent(tabId: number, event: unknown): void {
    if (typeof event !== 'object' || event === null) return
    const e = event as Record<string, unknown>
    if (typeof e.plugin !== 'string' || !this.tracker.isIsolated(tabId, e.plugin)) return
    if (e.kind === 'flush' && typeof e.dispatchId === 'string') {
      const run = runningDispatches.get(e.dispatchId)
      if (run?.tabId === tabId && run.plugin === e.plugin) run.flushed?.()
    } else if (e.kind === 'progress' && typeof e.dispatchId === 'string' && typeof e.progress === 'number') {
      // Only the tab that runs the call may report its progress.
      const run = runningDispatches.get(e.dispatchId)
      if (!run || run.tabId !== tabId || run.plugin !== e.plugin) return
      if (!this.progressRate.allow(e.plugin)) return
      this.sendProgress(
        e.dispatchId,
        e.progress,
        typeof e.total === 'number' ? e.total : undefined,
        typeof e.message === 'string' ? e.message : undefined,
      )
    } else if (e.kind === 'log' && typeof e.message === 'string') {
      const level = (['debug', 'info', 'warning', 'error'] as const).find((l) => l === e.level) ?? 'info'
      // The entry belongs to a call only while that call runs in this tab for this plugin; any other
      // entry carries no call and reaches no MCP client (the daemon's log only).
      const run = typeof e.dispatchId === 'string' ? runningDispatches.get(e.dispatchId) : undefined
      const entry: LogEntry = {
        plugin: e.plugin,
        ...(run?.tabId === tabId && run.plugin === e.plugin ? { dispatchId: e.dispatchId as string } : {}),
        level,
        message: e.message,
        ts: typeof e.ts === 'number' ? e.ts : Date.now(),
      }
      if (e.data !== undefined) entry.data = e.data
      this.logs.add(entry)
    }
  }

  private sendProgress(dispatchId: string, progress: number, total?: number, message?: string): void {
    const params: { dispatchId: string; progress: number; total?: number; message?: string } = {
      dispatchId,
      progress,
    }
    if (total !== undefined) params.total = total
    if (message !== undefined) params.message = message.slice(0, 1000)
    this.connection.current?.notify('tool.progress', params)
  }

  // ---- from the side panel ----------------------------------------------------------------------

  async panelCommand(cmd: PanelCommand): Promise<PanelReply> {
    try {
      if (isWorkflowCommand(cmd))
        return ok(await workflowCommand(cmd, (method, params) => this.ask(method, params), this.recorder))
      switch (cmd.type) {
        case 'setPluginPermission':
          return ok(
            await this.ask('config.setPluginPermission', { plugin: cmd.plugin, permission: cmd.permission }),
          )
        case 'setToolPermission':
          return ok(
            await this.ask('config.setToolPermission', {
              plugin: cmd.plugin,
              tool: cmd.tool,
              permission: cmd.permission,
            }),
          )
        case 'setSitePermission':
          return ok(
            await this.ask('config.setSitePermission', {
              origin: cmd.origin,
              ...(cmd.tool !== undefined ? { tool: cmd.tool } : {}),
              permission: cmd.permission,
            }),
          )
        case 'markReviewed':
          return ok(await this.ask('config.markReviewed', { plugin: cmd.plugin, version: cmd.version }))
        case 'openFolder':
          return ok(await this.ask('folder.open', { path: cmd.path }))
        case 'reloadTab':
          // Only a tab the panel lists as needing it: the panel cannot be used to reload any tab.
          if (!(await this.tracker.reloadStale(cmd.tabId, cmd.plugin)))
            throw new Error('That tab no longer needs a reload.')
          return ok(true)
        case 'decide': {
          const peer = this.connection.current
          if (!peer)
            return { ok: false, message: 'Not connected to the daemon: the decision cannot be delivered.' }
          if (!this.approvals.has(cmd.id)) return { ok: false, message: 'This request is no longer waiting.' }
          peer.notify('confirmation.response', { id: cmd.id, decision: cmd.decision })
          this.approvals.remove(cmd.id)
          return ok(true)
        }
        case 'getAudit':
          // earlier=1: after a restart the panel still shows the calls of the last run (from audit.log).
          return ok(
            await this.daemonGet(
              `/audit?limit=${Math.min(Math.max(1, Math.floor(cmd.limit)), 500)}&earlier=1`,
            ),
          )
        case 'acknowledgeAuditAlarm':
          await this.auditWitness.acknowledge()
          return ok(true)
        case 'reconnect':
          this.connection.reconnectNow()
          return ok(true)
        case 'reloadExtension':
          // The files on disk are the daemon's version (`bridge start` installs them): run them.
          chrome.runtime.reload()
          return ok(true)
        case 'searchPlugins':
          return ok(await this.ask('plugin.search', { query: cmd.query }, REGISTRY_QUERY_TIMEOUT_MS))
        case 'checkUpdates':
          return ok(await this.ask('plugin.checkUpdates', {}, REGISTRY_QUERY_TIMEOUT_MS))
        case 'installPlugin':
          return ok(await this.ask('plugin.install', { name: cmd.name }, REGISTRY_CHANGE_TIMEOUT_MS))
        case 'updatePlugin':
          return ok(
            await this.ask('plugin.updateFromRegistry', { name: cmd.name }, REGISTRY_CHANGE_TIMEOUT_MS),
          )
        case 'removePlugin':
          return ok(await this.ask('plugin.remove', { name: cmd.name }, REGISTRY_CHANGE_TIMEOUT_MS))
      }
    } catch (err) {
      return { ok: false, message: err instanceof Error ? err.message : String(err) }
    }
  }

  private async ask<K extends ClientRequestName>(
    method: K,
    params: ClientParams<K>,
    timeoutMs?: number,
  ): Promise<ClientResult<K>> {
    const peer = this.connection.current
    if (!peer) throw new Error('Not connected to the daemon.')
    return peer.request(method, params, timeoutMs)
  }

  /** GET of one of the daemon's /audit paths, parsed. */
  private async daemonGet(path: string): Promise<unknown> {
    const { port, secret } = await readDaemonAddress()
    if (!secret) throw new Error('No auth.json: cannot read the audit log.')
    // The secret goes only to a server that proved it knows it (see daemonProof.ts).
    const proof = await proveDaemon(daemonBaseUrl(port), secret)
    if (proof !== 'proven')
      throw new Error(
        proof === 'unreachable'
          ? `No bridge daemon answers on 127.0.0.1:${port}.`
          : proof === 'busy'
            ? `The bridge daemon on 127.0.0.1:${port} is busy: try again in a minute.`
            : `The server on 127.0.0.1:${port} does not hold this extension’s secret, so the audit log was not requested from it.`,
      )
    const res = await fetch(`${daemonBaseUrl(port)}${path}`, {
      headers: { authorization: `Bearer ${secret}` },
      cache: 'no-store',
    })
    if (!res.ok) throw new Error(`The daemon answered ${res.status} to GET ${path.split('?')[0]}.`)
    return res.json()
  }

  panelState(): PanelState {
    return {
      extensionVersion: BRIDGE_VERSION,
      connection: this.connection.status,
      skipPermissions: this.skipPermissions,
      plugins: this.tracker.pluginList().map((p) => {
        const { state, tabs } = this.tracker.pluginTabs(p.name)
        const rebuild = this.tracker.rebuildNotice(p.name)
        return {
          ...p,
          tabState: state,
          tabs,
          staleTabIds: this.tracker.staleTabs(p.name),
          ...(rebuild ? { rebuild } : {}),
        }
      }),
      browserTools: this.browserTools,
      sites: this.sites.siteStates(),
      ...(this.sites.activeOrigin !== undefined ? { activeOrigin: this.sites.activeOrigin } : {}),
      failedPlugins: this.failedPlugins,
      approvals: this.approvals.list(),
      running: [...this.running.values()],
      auditRevision: this.auditRevision,
      ...(this.auditWitness.view ? { auditAlarm: this.auditWitness.view } : {}),
      workflowsRevision: this.workflowsRevision,
      ...(this.recorder.view() ? { recording: this.recorder.view() } : {}),
    }
  }
}

const ok = <T>(value: T): PanelReply<T> => ({ ok: true, value })
