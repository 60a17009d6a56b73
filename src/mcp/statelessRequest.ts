/**
 * The checks every request of the stateless revision (2026-07-28) passes before it is served: no
 * session, so each request says who it is and what it speaks. `_meta` must carry the protocol version
 * and the client's capabilities (the client's name is optional), the `MCP-Protocol-Version` header must
 * name the same version, and the `Mcp-Method` / `Mcp-Name` headers must repeat the body's method and
 * name (whitespace around a header value is trimmed, RFC 9110 section 5.5; values are case-sensitive).
 * Pure: the request's headers and body in, the request's facts or the refusal to send out.
 */
import type { LoggingLevel } from '@modelcontextprotocol/sdk/types.js'
import { MCP_PROTOCOL_VERSIONS } from '../protocol'
import { JsonRpcErrorCode } from '../protocol/errors'
import { LOGGING_LEVELS, type RpcId } from './mcpMessages'

/** The revisions served without a session, newest first. */
export const STATELESS_VERSIONS: readonly string[] = ['2026-07-28']

/** Every revision `/mcp` speaks: the stateless ones, then those with sessions. */
export const ALL_VERSIONS: readonly string[] = [...STATELESS_VERSIONS, ...MCP_PROTOCOL_VERSIONS]

/** `_meta` keys of the stateless revision. */
export const META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  logLevel: 'io.modelcontextprotocol/logLevel',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
} as const

/** JSON-RPC errors the stateless revision adds. */
export const StatelessErrorCode = {
  /** A header disagrees with the body, or a required one is missing. */
  headerMismatch: -32020,
  /** The request needs a client capability its `_meta` did not declare. */
  missingClientCapability: -32021,
  /** The server does not speak the version the request names. */
  unsupportedProtocolVersion: -32022,
} as const

export interface StatelessFacts {
  protocolVersion: string
  /** What the client can do for this request only (MCP: never inferred from earlier requests). */
  clientCapabilities: Record<string, unknown>
  clientInfo?: { name: string; version: string }
  /** Absent: no log messages for this request. */
  logLevel?: LoggingLevel
  progressToken?: RpcId
}

export interface StatelessRefusal {
  status: number
  code: number
  message: string
  data?: Record<string, unknown>
}

type Headers = (name: string) => string | null

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

const refusal = (code: number, message: string, data?: Record<string, unknown>): StatelessRefusal => ({
  status: 400,
  code,
  message,
  ...(data ? { data } : {}),
})

/** The body field a method's `Mcp-Name` header repeats, if it has one. */
function nameOf(method: string, params: Record<string, unknown>): string | undefined {
  const value =
    method === 'tools/call' || method === 'prompts/get'
      ? params.name
      : method === 'resources/read'
        ? params.uri
        : undefined
  return typeof value === 'string' ? value : undefined
}

/**
 * True when a POST without a session speaks the stateless revision: its `MCP-Protocol-Version` header
 * names no revision with sessions (or, absent, its `_meta` names a version). Otherwise it is a client
 * of a session revision: its `initialize` opens a session, anything else lacks one. An `initialize`
 * of the stateless revision is answered as the method it removed.
 */
export function isStatelessRequest(headers: Headers, params: Record<string, unknown>): boolean {
  const header = headers('mcp-protocol-version')?.trim()
  if (header === undefined || header === '')
    return isObject(params._meta) && params._meta[META.protocolVersion] !== undefined
  return !MCP_PROTOCOL_VERSIONS.includes(header)
}

/** Checks one stateless request: its facts, or what to refuse it with (always HTTP 400). */
export function readStatelessRequest(
  headers: Headers,
  method: string,
  params: Record<string, unknown>,
): { ok: true; facts: StatelessFacts } | { ok: false; refusal: StatelessRefusal } {
  const fail = (r: StatelessRefusal) => ({ ok: false as const, refusal: r })
  const header = headers('mcp-protocol-version')?.trim()
  if (!header)
    return fail(
      refusal(
        StatelessErrorCode.headerMismatch,
        'Header mismatch: the MCP-Protocol-Version header is missing',
      ),
    )
  const meta = params._meta
  const missing = [META.protocolVersion, META.clientCapabilities].filter(
    (key) => !isObject(meta) || meta[key] === undefined,
  )
  if (!isObject(meta) || missing.length > 0)
    return fail(
      refusal(JsonRpcErrorCode.invalidParams, `Invalid params: _meta must carry ${missing.join(' and ')}`),
    )
  const version = meta[META.protocolVersion]
  if (typeof version !== 'string')
    return fail(
      refusal(
        JsonRpcErrorCode.invalidParams,
        `Invalid params: _meta ${META.protocolVersion} must be a string`,
      ),
    )
  if (version !== header)
    return fail(
      refusal(
        StatelessErrorCode.headerMismatch,
        'Header mismatch: MCP-Protocol-Version does not match _meta io.modelcontextprotocol/protocolVersion',
      ),
    )
  if (!STATELESS_VERSIONS.includes(version))
    return fail(
      refusal(
        StatelessErrorCode.unsupportedProtocolVersion,
        `Unsupported protocol version: ${version.slice(0, 64)} (without a session bridge speaks ${STATELESS_VERSIONS.join(', ')}; ${MCP_PROTOCOL_VERSIONS.join(', ')} start with initialize)`,
        {
          supported: [...ALL_VERSIONS],
          requested: version,
        },
      ),
    )
  const capabilities = meta[META.clientCapabilities]
  if (!isObject(capabilities))
    return fail(
      refusal(
        JsonRpcErrorCode.invalidParams,
        `Invalid params: _meta ${META.clientCapabilities} must be an object`,
      ),
    )
  const info = meta[META.clientInfo]
  if (
    info !== undefined &&
    (!isObject(info) || typeof info.name !== 'string' || typeof info.version !== 'string')
  )
    return fail(
      refusal(
        JsonRpcErrorCode.invalidParams,
        `Invalid params: _meta ${META.clientInfo} must have a name and a version`,
      ),
    )
  const level = meta[META.logLevel]
  if (
    level !== undefined &&
    (typeof level !== 'string' || !(LOGGING_LEVELS as readonly string[]).includes(level))
  )
    return fail(
      refusal(
        JsonRpcErrorCode.invalidParams,
        `Invalid params: _meta ${META.logLevel} must be one of ${LOGGING_LEVELS.join(', ')}`,
      ),
    )
  const token = meta.progressToken
  if (
    token !== undefined &&
    typeof token !== 'string' &&
    (typeof token !== 'number' || !Number.isFinite(token))
  )
    return fail(
      refusal(
        JsonRpcErrorCode.invalidParams,
        'Invalid params: _meta.progressToken must be a string or a number',
      ),
    )
  const methodHeader = headers('mcp-method')?.trim()
  if (methodHeader !== method)
    return fail(
      refusal(
        StatelessErrorCode.headerMismatch,
        methodHeader === undefined
          ? 'Header mismatch: the Mcp-Method header is missing'
          : 'Header mismatch: Mcp-Method does not match the body method',
      ),
    )
  const name = nameOf(method, params)
  if (name !== undefined) {
    const nameHeader = headers('mcp-name')?.trim()
    if (nameHeader !== name)
      return fail(
        refusal(
          StatelessErrorCode.headerMismatch,
          nameHeader === undefined
            ? 'Header mismatch: the Mcp-Name header is missing'
            : 'Header mismatch: Mcp-Name does not match the body',
        ),
      )
  }
  return {
    ok: true,
    facts: {
      protocolVersion: version,
      clientCapabilities: capabilities,
      ...(isObject(info) ? { clientInfo: { name: String(info.name), version: String(info.version) } } : {}),
      ...(level === undefined ? {} : { logLevel: level as LoggingLevel }),
      ...(token === undefined ? {} : { progressToken: token }),
    },
  }
}
