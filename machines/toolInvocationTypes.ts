/** The data and events of one tool call (machines/toolInvocationMachine.ts), apart so lookups can name them. */
import type { ActorRef, Snapshot } from 'xstate'
import type { ApprovalWaiting } from './approvalMachine'
import type { SlotAnswer, TabAnswer } from './pluginTabMachine'
import type {
  ApprovalFlow,
  ApprovalRequest,
  ApprovalTab,
  Decision,
  Permission,
  ToolErrorCode,
} from '../src/protocol'

/** Why a call failed: a code of DESIGN.md section 6, a human message, the audit category. */
export interface ToolFailure {
  code: ToolErrorCode
  message: string
  category?: string
}

/** A success carries the origins its output was read from, when the extension named them (data-flow labels). */
export type ToolOutcome =
  { ok: true; output: unknown; origins?: string[] } | { ok: false; error: ToolFailure }
export type StepResult = { ok: true } | { ok: false; error: ToolFailure }
/** What a tool's daemon-side step made of valid input (files read by path), or its refusal. */
/** `flow`: the data-flow guard asks the user about what the call would carry from one site to another. */
export type PreparedInput =
  { ok: true; input: unknown; flow?: ApprovalFlow } | { ok: false; error: ToolFailure }

export interface ToolInvocationInput {
  /** Also the `dispatchId` on the wire and the approval id; the actor's systemId is `toolInvocation:<id>`. */
  invocationId: string
  /** The plugin that owns the tool (`browser` for built-ins); for an unknown name, its part before the first `_`. */
  plugin: string
  /** Prefixed tool name as the client called it. */
  tool: string
  input: unknown
  /** The MCP client that made the call (its name) and its session: who approvals and audit name. */
  client: string
  session: string
  /** The MCP request carried `_meta.progressToken`: progress is emitted only then. */
  hasProgressToken: boolean
  /** ms since epoch when the request arrived: the audit duration and `tool.invocationEnd` count from here. */
  startedAt: number
}

export interface ToolInvocationContext extends ToolInvocationInput {
  /** The synchronous check's verdict (validation and permission), taken on entry. */
  verdict?: CheckVerdict
  outcome?: ToolOutcome
  /** The tab an `ask` call will run in, chosen by its pluginTab before the user is asked (absent for built-ins). */
  tab?: ApprovalTab
  /** The input as the tool's daemon-side step prepared it (the `prepareInput` actor's output), sent instead of `input`. */
  preparedInput?: unknown
  /** When the call put its question to the person (ms since epoch), and how long the answer took once it came. */
  approvalAskedAt?: number
  approvalMs?: number
  /** What the call would carry from one site to another, when the data-flow guard asks the user about it. */
  flow?: ApprovalFlow
  /** The question put to the person, once asked (the side panel's card; a trusted client is asked the same). */
  approvalRequest?: ApprovalRequest
}

/**
 * Validation and the permission check, as one synchronous step: an unknown tool or input that does
 * not match its schema fails here; else the tool's permission, whether the extension is connected,
 * and whether the tool has a daemon-side step to prepare its input (files read by path).
 */
export type CheckVerdict =
  | { ok: false; error: ToolFailure }
  | {
      ok: true
      permission: Permission
      extensionConnected: boolean
      prepare: boolean
      /** A site's own tool: the hash of the declaration the call was checked with (what the user is shown). */
      declared?: string
    }

export type ToolInvocationEvent =
  | { type: 'confirmation.response'; decision: Decision }
  /** The person answered in the MCP client that made the call (a client trusted to show approvals). */
  | { type: 'approval.answeredInClient'; decision: Decision }
  | { type: 'tool.progress'; progress: number; total?: number; message?: string }
  /** A log entry the extension tied to this call; `plugin` is the plugin that wrote it. */
  | { type: 'tool.log'; plugin: string; entry: ToolLogEntry }
  | { type: 'extension.lost' }
  | { type: 'cancel'; reason: string }
  /** The daemon is stopping and its grace period for calls in flight is over. */
  | { type: 'daemon.stopping' }
  /** The tool list changed (a site re-declared its tools, a plugin reloaded): a waiting card may be stale. */
  | { type: 'catalog.changed' }
  | SlotAnswer
  | TabAnswer
  | ApprovalWaiting

/** One plugin log entry of a call, bounded and neutralized already, as its client will read it. */
export interface ToolLogEntry {
  level: 'debug' | 'info' | 'warning' | 'error'
  /** `plugin:<name>`. */
  logger: string
  data: unknown
}

/**
 * What the invocation tells whoever listens (`actor.on(...)`), for the call's own client only: progress
 * for its progressToken, the log entries its plugin wrote during the call, and its approval opening
 * and closing (so a client trusted to show approvals is asked too, and the question withdrawn).
 */
export type ToolInvocationEmitted =
  | { type: 'tool.progress'; progress: number; total?: number; message?: string }
  | ({ type: 'tool.log' } & ToolLogEntry)
  | { type: 'approval.opened'; request: ApprovalRequest }
  | { type: 'approval.closed' }

/** A call's actor as others see it: its events in, its progress out, its outcome as output. */
export type ToolInvocationRef = ActorRef<Snapshot<ToolOutcome>, ToolInvocationEvent, ToolInvocationEmitted>
