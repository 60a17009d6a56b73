/**
 * What the service worker tells the side panel (pushed over a `panel` port on every change) and what
 * the panel asks of it (`chrome.runtime.sendMessage({ panel: PanelCommand })`, answered with a
 * PanelReply). The panel holds no state of its own beyond what it renders.
 */
import type { WitnessProblem } from '../../src/protocol/auditProof'
import type { RecordingView } from '../recorder/personRecorder'
import type {
  ApprovalFlow,
  ApprovalTab,
  AuditEntryView,
  Decision,
  FailedPlugin,
  Permission,
  PluginState,
  SiteState,
  TabInfo,
  TabStateName,
  ToolAnnotations,
  ToolState,
} from './wireTypes'

export type ConnectionStatus =
  /** Looking up the port and secret, or the socket is opening. */
  | 'connecting'
  | 'connected'
  /** Nothing answers on the port: the daemon is not running. */
  | 'unreachable'
  /** The daemon proved itself but refused the connection. */
  | 'unauthorized'
  /** The server on the port could not prove it knows the secret: nothing was sent to it. */
  | 'impostor'
  /** The daemon speaks another protocol version. */
  | 'protocolMismatch'
  /** Another browser took over the one extension connection. */
  | 'replaced'
  /** auth.json is missing or unreadable: `bridge start` has not installed this copy. */
  | 'misconfigured'

export interface ConnectionView {
  status: ConnectionStatus
  /** One sentence for the user, with what to do about it. */
  message: string
  port: number
  /** ms since epoch of the next automatic attempt, when one is scheduled. */
  retryAt?: number
  serverVersion?: string
  /**
   * Connected, but the daemon and this running extension are of different versions (after `bridge
   * update` the extension runs its old code until reloaded): one sentence and the one fix.
   */
  versionNotice?: { message: string; fix: 'reloadExtension' | 'restartDaemon' }
  /** Down, and reloading the extension is the fix (a daemon of a newer protocol): the banner offers it. */
  fix?: 'reloadExtension'
}

export interface ApprovalView {
  id: string
  plugin: string
  /** Display name of the plugin when known. */
  pluginDisplayName: string
  tool: string
  params: unknown
  expiresAt: number
  /** The MCP client that asked (`cli` / `extension` for the secret's holders). */
  client: string
  /** The tab the call will run in; absent for built-in tools. */
  tab?: ApprovalTab
  /** False when "Always allow" is not offered (it would not set the tool to auto). */
  allowAlways?: boolean
  /** What the asking client may use, in words, when the user limited it. */
  scope?: string[]
  /** A site's own tool (WebMCP): the origin that declared it. */
  declaredBy?: string
  /** The tool's name for people (plugin and built-in tools). */
  title?: string
  /** What the tool declares about itself (read-only, destructive...): shown, never a permission. */
  annotations?: ToolAnnotations
  /** The data-flow guard's question: what the call would carry from one site to another, masked. */
  flow?: ApprovalFlow
}

export interface PluginView extends PluginState {
  tabState: TabStateName
  tabs: TabInfo[]
  /**
   * Matching tabs whose document did not start with the plugin's current adapter (open before the
   * extension started, the plugin was turned on, or its adapter changed): they need a reload.
   */
  staleTabIds: number[]
  /** The plugin's last rebuild while the extension ran: its tabs reloading for it, or all updated. */
  rebuild?: RebuildNotice
}

export interface RebuildNotice {
  state: 'reloading' | 'updated'
  /** ms since epoch when the rebuild reached the extension. */
  at: number
  /** How many open tabs were reloaded to start with the new build. */
  tabs: number
}

export interface RunningView {
  dispatchId: string
  plugin: string
  tool: string
  startedAt: number
}

export interface PanelState {
  extensionVersion: string
  connection: ConnectionView
  skipPermissions: boolean
  plugins: PluginView[]
  browserTools: ToolState[]
  /** Sites' own tools (WebMCP): turned-on sites and sites with tools open. */
  sites: SiteState[]
  /** The http(s) origin of the active tab, for its "use this site's tools" switch. */
  activeOrigin?: string
  failedPlugins: FailedPlugin[]
  approvals: ApprovalView[]
  running: RunningView[]
  /** Bumped when a call ends, so the panel refreshes the audit list. */
  auditRevision: number
  /** The audit log failed the extension's check (./background/auditWitness.ts), until acknowledged. */
  auditAlarm?: AuditAlarmView
  /** Bumped when the daemon announces a change: the panel lists the workflows again. */
  workflowsRevision: number
  /** A person's demonstration being recorded from the panel (../recorder/personRecorder.ts). */
  recording?: RecordingView
}

/** What the audit witness found wrong with the daemon's audit log. */
export interface AuditAlarmView {
  /** What was found (src/protocol/auditProof.ts WitnessProblem). */
  problem: WitnessProblem
  /** One sentence on what was found. */
  detail: string
  /** ISO time of the last check that found the log as it should be. */
  lastGoodAt: string
  /** ISO time the problem was found. */
  foundAt: string
}

export type PanelCommand =
  | { type: 'setPluginPermission'; plugin: string; permission: Permission }
  | { type: 'setToolPermission'; plugin: string; tool: string; permission: Permission }
  | { type: 'markReviewed'; plugin: string; version: string }
  /** A site's default (no `tool`) or one of its tools (the declared name). */
  | { type: 'setSitePermission'; origin: string; tool?: string; permission: Permission }
  | { type: 'decide'; id: string; decision: Decision }
  | { type: 'openFolder'; path: string }
  /** Reloads a matching tab that is open from before the plugin's current code (one of `staleTabIds`). */
  | { type: 'reloadTab'; plugin: string; tabId: number }
  | { type: 'getAudit'; limit: number }
  | { type: 'reconnect' }
  /** Reloads the extension so it runs the files `bridge start` installed (the daemon's version). */
  | { type: 'reloadExtension' }
  /** The plugin store: npm registry search, install, update and remove, through the daemon. */
  | { type: 'searchPlugins'; query: string }
  | { type: 'installPlugin'; name: string }
  | { type: 'updatePlugin'; name: string }
  | { type: 'removePlugin'; name: string }
  | { type: 'checkUpdates' }
  /** The user read the audit alarm: it goes, and the daemon's checkpoint of then is trusted. */
  | { type: 'acknowledgeAuditAlarm' }
  | WorkflowCommand

export interface RegistryPluginView {
  /** Package name (`@bridge-mcp/bridge-plugin-notes`). */
  name: string
  version: string
  description: string
  author: string
}

export interface PluginUpdateView {
  name: string
  current: string
  latest: string
}

/** The workflow section (../sidepanel/WorkflowList.tsx): the daemon owns the files, the worker relays. */
export type WorkflowCommand =
  | { type: 'listWorkflows' }
  | { type: 'setWorkflowPermission'; name: string; permission: Permission }
  | { type: 'removeWorkflowStep'; name: string; step: number; seen: string }
  | { type: 'renameWorkflowVariable'; name: string; from: string; to: string; seen: string }
  | { type: 'removeWorkflow'; name: string }
  /** Records the person's own acts in the front tab, until `recordStop` saves them as `name`. */
  | { type: 'recordStart'; name: string; description: string }
  | { type: 'recordStop' }
  | { type: 'recordCancel' }

export type PanelReply<T = unknown> = { ok: true; value: T } | { ok: false; message: string }

export type { AuditEntryView }
export type { RecordingView } from '../recorder/personRecorder'
export type { WorkflowView } from '../../src/protocol/workflowPanel'
export const PANEL_PORT_NAME = 'panel'
