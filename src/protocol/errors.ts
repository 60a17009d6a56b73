/**
 * Error codes. HTTP error bodies are `{ error: { code, message } }`; tool errors are MCP results with
 * `isError: true` and the text `[<code>] <message>`; audit entries carry `{ code, message, category? }`.
 */

/** Codes of HTTP error bodies. */
export const HttpErrorCode = {
  forbiddenHost: 'forbidden_host',
  forbiddenOrigin: 'forbidden_origin',
  unauthorized: 'unauthorized',
  notFound: 'not_found',
  methodNotAllowed: 'method_not_allowed',
  payloadTooLarge: 'payload_too_large',
  rateLimited: 'rate_limited',
  extensionNotConnected: 'extension_not_connected',
  badRequest: 'bad_request',
  serviceUnavailable: 'service_unavailable',
  internalError: 'internal_error',
} as const
export type HttpErrorCode = (typeof HttpErrorCode)[keyof typeof HttpErrorCode]

export const HTTP_STATUS_BY_CODE: Record<HttpErrorCode, number> = {
  forbidden_host: 403,
  forbidden_origin: 403,
  unauthorized: 401,
  not_found: 404,
  method_not_allowed: 405,
  payload_too_large: 413,
  rate_limited: 429,
  extension_not_connected: 503,
  bad_request: 400,
  service_unavailable: 503,
  internal_error: 500,
}

/** Codes of tool-call failures (audit `error.code` and the `[code]` prefix of MCP error results). */
export const ToolErrorCode = {
  unknownTool: 'unknown_tool',
  invalidInput: 'invalid_input',
  permissionOff: 'permission_off',
  approvalDenied: 'approval_denied',
  approvalTimeout: 'approval_timeout',
  pluginBusy: 'plugin_busy',
  extensionNotConnected: 'extension_not_connected',
  extensionDisconnected: 'extension_disconnected',
  tabClosed: 'tab_closed',
  tabUnavailable: 'tab_unavailable',
  timeout: 'timeout',
  toolError: 'tool_error',
  /** The MCP client cancelled the request or closed its session before the call finished. */
  cancelled: 'cancelled',
  /** Too many of this client's calls already wait for the user's approval. */
  approvalQueueFull: 'approval_queue_full',
  /** The daemon stopped (SIGTERM) before the call finished; the client may call again once it is back. */
  shuttingDown: 'shutting_down',
  /** The client's scope (bridge client set) does not cover this tool, or `otherAgent: true`. */
  outOfScope: 'out_of_scope',
  /** The data-flow guard refused to carry what was read on one origin to another (block mode, or a client's fixed origins). */
  flowBlocked: 'flow_blocked',
  /** The tool answered with an output its declared output schema refuses; it is not passed on. */
  invalidOutput: 'invalid_output',
  /** A site's own tool no longer has the declaration the call was checked and approved with. */
  declarationChanged: 'declaration_changed',
} as const
export type ToolErrorCode = (typeof ToolErrorCode)[keyof typeof ToolErrorCode]

/** `error.category` of audit entries; plugins may also use their own (`auth`, `rate_limit`, ...). */
export const ErrorCategory = {
  permission: 'permission',
  validation: 'validation',
  concurrency: 'concurrency',
  connection: 'connection',
  tab: 'tab',
  timeout: 'timeout',
  auth: 'auth',
  rateLimit: 'rate_limit',
  notFound: 'not_found',
  internal: 'internal',
} as const

/** The category each daemon-side tool error code is filed under. `tool_error` takes the plugin's own. */
export const CATEGORY_BY_TOOL_ERROR: Record<ToolErrorCode, string | undefined> = {
  unknown_tool: 'validation',
  invalid_input: 'validation',
  permission_off: 'permission',
  approval_denied: 'permission',
  approval_timeout: 'permission',
  plugin_busy: 'concurrency',
  extension_not_connected: 'connection',
  extension_disconnected: 'connection',
  tab_closed: 'tab',
  tab_unavailable: 'tab',
  timeout: 'timeout',
  tool_error: undefined,
  cancelled: 'connection',
  approval_queue_full: 'concurrency',
  shutting_down: 'connection',
  out_of_scope: 'permission',
  flow_blocked: 'permission',
  invalid_output: 'validation',
  declaration_changed: 'permission',
}

/** JSON-RPC 2.0 error codes used on /ws. Only the wire boundary uses numbers. */
export const JsonRpcErrorCode = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  tabClosed: -32001,
  tabUnavailable: -32002,
  toolError: -32003,
} as const
