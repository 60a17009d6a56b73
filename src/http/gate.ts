/**
 * The security gate every request and upgrade passes, in this order:
 * 1. Host: exactly one Host header, equal to `127.0.0.1:<port>`, `localhost:<port>` or `[::1]:<port>`
 *    (the DNS-rebinding defence: a rebound page's requests carry its own host name).
 * 2. Origin: absent (native clients) or exactly the bridge extension's origin.
 * 3. Token: `Authorization: Bearer <secret>` or a named MCP client's own token (which opens only the
 *    routes that accept client tokens: `/mcp`), compared in constant time against every credential.
 *    On `/ws`: the pinned extension Origin and `Sec-WebSocket-Protocol: bridge, <secret>`.
 * Each check returns null when it passes or the refusal to send.
 */
import { timingSafeEqual } from 'node:crypto'
import { EXTENSION_ORIGIN, WS_SUBPROTOCOL } from '../protocol/constants'
import type { HttpReply } from './engine'
import { errorResponse } from './responses'

/** What the gate reads of a request: its headers, by lower-case name. */
export interface HeaderSource {
  header(name: string): string | null
}

/** The names of this machine that bridge answers to, and the only ones it connects to. */
export const LOOPBACK_HOSTNAMES: readonly string[] = ['127.0.0.1', 'localhost', '[::1]']

export function allowedHosts(port: number): readonly string[] {
  return LOOPBACK_HOSTNAMES.map((hostname) => `${hostname}:${port}`)
}

/** The allowed Host values of the last port asked about (the daemon's one port: built once, not per request). */
let hostsOf: { port: number; hosts: readonly string[] } | undefined
const allowedHostsCached = (port: number): readonly string[] =>
  (hostsOf?.port === port ? hostsOf : (hostsOf = { port, hosts: allowedHosts(port) })).hosts

/** Duplicate headers reach us joined with ", " by the engines, so they never equal an allowed value. */
export function checkHost(request: HeaderSource, port: number): HttpReply | null {
  const host = request.header('host')
  if (host !== null && allowedHostsCached(port).includes(host.toLowerCase())) return null
  return errorResponse('forbidden_host', 'the Host header must name this loopback server')
}

export function checkOrigin(request: HeaderSource): HttpReply | null {
  const origin = request.header('origin')
  if (origin === null || origin === EXTENSION_ORIGIN) return null
  return errorResponse('forbidden_origin', 'requests from web pages and other extensions are not allowed')
}

/**
 * Constant-time comparison of a presented token with one of ours. Only a length mismatch answers
 * early, and the length is no secret: every token bridge makes is 64 hex characters.
 */
export function secretsEqual(given: string, secret: string): boolean {
  return bytesEqual(Buffer.from(given), knownBytes(secret))
}

const bytesEqual = (given: Buffer, ours: Buffer): boolean =>
  given.length === ours.length && timingSafeEqual(given, ours)

/** The daemon's own credentials as bytes (the secret, client tokens); bounded, a rotation starts afresh. */
const known = new Map<string, Buffer>()
function knownBytes(secret: string): Buffer {
  let bytes = known.get(secret)
  if (bytes === undefined) {
    if (known.size >= 256) known.clear()
    bytes = Buffer.from(secret)
    known.set(secret, bytes)
  }
  return bytes
}

/** The token of `Authorization: Bearer <token>`, or null. */
export function bearerToken(request: HeaderSource): string | null {
  const match = /^Bearer +(\S+) *$/i.exec(request.header('authorization') ?? '')
  return match?.[1] ?? null
}

/** True when the Authorization header carries the secret (or when no secret is configured). */
export function hasValidBearer(request: HeaderSource, secret: string | null): boolean {
  if (secret === null) return true
  const token = bearerToken(request)
  return token !== null && secretsEqual(token, secret)
}

/** A named MCP client's credential. */
export interface ClientCredential {
  name: string
  token: string
}

/**
 * The client whose token `given` is, or null. Every client is compared (no early exit), each in
 * constant time, so the time taken says nothing about which token, or how much of one, matched.
 */
export function matchClientToken(given: string, clients: readonly ClientCredential[]): string | null {
  const bytes = Buffer.from(given)
  let found: string | null = null
  for (const client of clients)
    if (bytesEqual(bytes, knownBytes(client.token)) && found === null) found = client.name
  return found
}

/** `/ws` is the extension's alone: its pinned Origin must be there (a native process sends none). */
export function checkExtensionOrigin(request: HeaderSource): HttpReply | null {
  if (request.header('origin') === EXTENSION_ORIGIN) return null
  return errorResponse('forbidden_origin', '/ws accepts only the bridge extension')
}

export function unauthorizedResponse(): HttpReply {
  return errorResponse('unauthorized', 'a valid bearer token is required', { 'www-authenticate': 'Bearer' })
}

/**
 * `/ws` credentials: `Sec-WebSocket-Protocol: bridge, <secret>` (keeps the secret out of URLs).
 * Returns true when `bridge` is offered first and the second entry is the secret.
 */
export function hasValidWsProtocol(request: HeaderSource, secret: string | null): boolean {
  const offered = (request.header('sec-websocket-protocol') ?? '').split(',').map((p) => p.trim())
  if (offered[0] !== WS_SUBPROTOCOL) return false
  if (secret === null) return true
  return offered.length === 2 && offered[1] !== undefined && secretsEqual(offered[1], secret)
}
