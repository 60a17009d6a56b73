// Type-only view of the wire contract for the side panel bundle: importing types keeps the TypeBox
// runtime out of the panel's script.
export type {
  ApprovalFlow,
  ApprovalTab,
  Decision,
  FailedPlugin,
  Permission,
  PluginState,
  SiteState,
  SiteToolState,
  TabInfo,
  TabStateName,
  ToolAnnotations,
  ToolState,
} from '../../src/protocol'

/** One entry of GET /audit (SPEC.md, "Audit entry"). */
export interface AuditEntryView {
  timestamp: string
  tool: string
  plugin: string
  /** Who called: an MCP client's name, or `cli` / `extension`. */
  client?: string
  success: boolean
  /** The call's own time, without the wait for approval. */
  durationMs: number
  /** How long the call waited for the person's answer (calls that asked). */
  approvalMs?: number
  error?: { code: string; message: string; category?: string }
}
