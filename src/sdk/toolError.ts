import { intrinsics } from './pageIntrinsics'

/**
 * The error a tool throws to fail with a structured result. The daemon reports it to the agent as
 * `[tool_error] <message>` and audits `code` and `category`.
 *
 * @example
 * throw new ToolError('Sign in to the notes site first', { code: 'not_signed_in', category: 'auth' })
 */
export class ToolError extends Error {
  /** snake_case code the agent and the audit log see. */
  readonly code: string
  /** `auth`, `rate_limit`, `not_found`, `validation`, `internal`, or the plugin's own word. */
  readonly category: string
  /** True when trying again later may succeed (rate limits, server errors, timeouts). */
  readonly retryable: boolean

  constructor(message: string, options: ToolErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    // Defined, not assigned: in a page, Error.prototype.name may be an accessor of the page's.
    intrinsics.defineProperty(this, 'name', {
      value: 'ToolError',
      writable: true,
      enumerable: false,
      configurable: true,
    })
    this.code = options.code ?? 'tool_error'
    this.category = options.category ?? 'internal'
    this.retryable = options.retryable ?? false
  }
}

export interface ToolErrorOptions {
  code?: string
  category?: string
  retryable?: boolean
  cause?: unknown
}

/** True for a ToolError, also one created by another copy of the SDK (another bundle, another realm). */
export function isToolError(value: unknown): value is ToolError {
  if (value instanceof ToolError) return true
  if (typeof value !== 'object' || value === null) return false
  const v = value as Record<string, unknown>
  return v.name === 'ToolError' && typeof v.message === 'string' && typeof v.code === 'string'
}

/** The error category an HTTP status maps to: what the agent should conclude from it. */
export function categoryForStatus(status: number): string {
  if (status === 401 || status === 403) return 'auth'
  if (status === 404) return 'not_found'
  if (status === 429) return 'rate_limit'
  return 'internal'
}

/** Rate limits and server errors may pass; client errors will not. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status >= 500
}
