import {
  APPROVAL_PROGRESS_INTERVAL_MS,
  APPROVAL_TIMEOUT_MS,
  AUDIT_LOG_ROTATE_BYTES,
  MCP_MAX_SESSIONS,
  SESSION_RATE_LIMIT_PER_MIN,
  TOOL_MAX_DURATION_MS,
  TOOL_RESULT_MAX_BYTES,
  TOOL_TIMEOUT_MS,
} from '../protocol'
import { EXTENSION_KEEPALIVE_TIMEOUT_MS } from '../../machines/extensionConnectionMachine'
import { AUDIT_SYNC_WINDOW_MS } from '../audit/auditFile'
import { AUDIT_SIGN_WINDOW_MS } from '../audit/auditTree'

/** Limits of the tool call path. Defaults are the product's; the env knobs exist for tests and tuning. */
export interface ToolPathLimits {
  toolTimeoutMs: number
  toolMaxDurationMs: number
  approvalTimeoutMs: number
  approvalProgressIntervalMs: number
  keepaliveTimeoutMs: number
  auditRotateBytes: number
  /** The audit log's group commit window: an entry is on disk at most this long (plus one fdatasync) after its call answered. */
  auditSyncWindowMs: number
  /** The shortest time between two audit checkpoints signed after group commits. */
  auditSignWindowMs: number
  resultMaxBytes: number
  maxMcpSessions: number
  /** MCP sessions one client may open per minute (initialize); 5 as SPEC.md says. */
  mcpSessionsPerMinute: number
}

/** Env knobs (documented in docs/protocol.md): positive integers only; anything else keeps the default. */
export const LIMIT_ENV: Record<keyof ToolPathLimits, string> = {
  toolTimeoutMs: 'BRIDGE_TOOL_TIMEOUT_MS',
  toolMaxDurationMs: 'BRIDGE_TOOL_MAX_DURATION_MS',
  approvalTimeoutMs: 'BRIDGE_APPROVAL_TIMEOUT_MS',
  approvalProgressIntervalMs: 'BRIDGE_APPROVAL_PROGRESS_INTERVAL_MS',
  keepaliveTimeoutMs: 'BRIDGE_WS_KEEPALIVE_TIMEOUT_MS',
  auditRotateBytes: 'BRIDGE_AUDIT_ROTATE_BYTES',
  auditSyncWindowMs: 'BRIDGE_AUDIT_SYNC_WINDOW_MS',
  auditSignWindowMs: 'BRIDGE_AUDIT_SIGN_WINDOW_MS',
  resultMaxBytes: 'BRIDGE_TOOL_RESULT_MAX_BYTES',
  maxMcpSessions: 'BRIDGE_MAX_MCP_SESSIONS',
  mcpSessionsPerMinute: 'BRIDGE_MCP_SESSIONS_PER_MINUTE',
}

export const DEFAULT_LIMITS: ToolPathLimits = {
  toolTimeoutMs: TOOL_TIMEOUT_MS,
  toolMaxDurationMs: TOOL_MAX_DURATION_MS,
  approvalTimeoutMs: APPROVAL_TIMEOUT_MS,
  approvalProgressIntervalMs: APPROVAL_PROGRESS_INTERVAL_MS,
  keepaliveTimeoutMs: EXTENSION_KEEPALIVE_TIMEOUT_MS,
  auditRotateBytes: AUDIT_LOG_ROTATE_BYTES,
  auditSyncWindowMs: AUDIT_SYNC_WINDOW_MS,
  auditSignWindowMs: AUDIT_SIGN_WINDOW_MS,
  resultMaxBytes: TOOL_RESULT_MAX_BYTES,
  maxMcpSessions: MCP_MAX_SESSIONS,
  mcpSessionsPerMinute: SESSION_RATE_LIMIT_PER_MIN,
}

export function limitsFromEnv(env: NodeJS.ProcessEnv = process.env): ToolPathLimits {
  const limits = { ...DEFAULT_LIMITS }
  for (const key of Object.keys(LIMIT_ENV) as (keyof ToolPathLimits)[]) {
    const raw = env[LIMIT_ENV[key]]
    if (raw !== undefined && /^\d+$/.test(raw) && Number(raw) > 0) limits[key] = Number(raw)
  }
  return limits
}
