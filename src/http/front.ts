/**
 * The engine-independent front: every request and upgrade goes through the security gate (Host,
 * Origin), then the route table (404 / 405), then the credential (401: the secret, or a named MCP
 * client's token where the route accepts client tokens), the body cap (413) and the route's
 * rate limit (429); a request that comes while the daemon drains is refused first (503). One error handler: a BridgeError with an HTTP code maps to its status; anything
 * else is logged and becomes a bare 500.
 */
import { isBridgeError } from '../errors'
import { log } from '../log'
import { EXTENSION_ORIGIN, LOOPBACK_HOST, WS_SUBPROTOCOL } from '../protocol/constants'
import { HTTP_STATUS_BY_CODE, type HttpErrorCode } from '../protocol/errors'
import type { HttpHandler, HttpReply, HttpRequest, UpgradeHandler } from './engine'
import {
  bearerToken,
  checkExtensionOrigin,
  checkHost,
  checkOrigin,
  hasValidWsProtocol,
  matchClientToken,
  secretsEqual,
  unauthorizedResponse,
  type ClientCredential,
} from './gate'
import { errorResponse, payloadTooLargeResponse, rateLimitedResponse } from './responses'
import type { Caller, HttpMethod, Route, RouteContext } from './route'

const logger = log.withTag('http')

export interface FrontOptions {
  routes: readonly Route[]
  /** The bound port (Host header check). */
  port: () => number
  /** The current secret; null disables token checks. */
  secret: () => string | null
  /** The named MCP clients' tokens as the daemon last read them (clients.json). */
  clients?: () => readonly ClientCredential[]
  maxBodyBytes: number
  /** False once the daemon stops taking requests (draining): each is refused with service_unavailable. */
  accepting?: () => boolean
}

export interface Front {
  handle: HttpHandler
  upgrade: UpgradeHandler
}

export function createFront(options: FrontOptions): Front {
  const byPath = new Map(options.routes.map((route) => [route.path, route]))

  const gate = (request: HttpRequest): HttpReply | null =>
    checkHost(request, options.port()) ?? checkOrigin(request)

  /** The secret's holder: the extension when it sends its own Origin, else the CLI. */
  const secretHolder = (request: HttpRequest): Caller =>
    request.header('origin') === EXTENSION_ORIGIN
      ? { role: 'extension', name: 'extension' }
      : { role: 'cli', name: 'cli' }

  /** Who the Authorization header names: the secret's holder, a named client, or nobody. */
  const callerOf = (request: HttpRequest): Caller | null => {
    const secret = options.secret()
    const token = bearerToken(request)
    if (secret === null || (token !== null && secretsEqual(token, secret))) return secretHolder(request)
    const name = token === null ? null : matchClientToken(token, options.clients?.() ?? [])
    return name === null ? null : { role: 'client', name }
  }

  async function route(request: HttpRequest): Promise<HttpReply> {
    if (options.accepting?.() === false)
      return errorResponse('service_unavailable', 'the daemon is shutting down')
    const refused = gate(request)
    if (refused) return refused
    const path = pathOf(request.target)
    const entry = byPath.get(path)
    if (!entry) return errorResponse('not_found', `no endpoint at ${path}`)
    const handler = entry.methods?.[request.method as HttpMethod]
    if (!handler) {
      if (entry.upgrade && request.method === 'GET')
        return errorResponse('bad_request', `${path} only accepts WebSocket upgrades`)
      const allow = Object.keys(entry.methods ?? {}).join(', ')
      return errorResponse('method_not_allowed', `${request.method} is not allowed on ${path}`, { allow })
    }
    const presented = callerOf(request)
    // A client token opens only the routes that accept one; elsewhere it counts as no credential.
    const caller = presented?.role === 'client' && !entry.clientTokens ? null : presented
    if (entry.auth === 'required' && caller === null) return unauthorizedResponse()
    const declared = Number(request.header('content-length') ?? 0)
    if (declared > options.maxBodyBytes) return payloadTooLargeResponse(options.maxBodyBytes)
    if (entry.rateLimit && !entry.rateLimit.take()) return rateLimitedResponse()
    return await handler(request, routeContext(request, caller))
  }

  return {
    async handle(request) {
      try {
        return await route(request)
      } catch (error) {
        return failure(error, request)
      }
    },

    async upgrade(request) {
      try {
        const refused = gate(request)
        if (refused) return { accept: false, response: refused }
        const path = pathOf(request.target)
        const entry = byPath.get(path)
        if (!entry?.upgrade)
          return { accept: false, response: errorResponse('not_found', `no WebSocket endpoint at ${path}`) }
        // The extension's channel is the extension's alone: the secret (a client token is refused
        // like a wrong one), then its pinned Origin (a browser cannot forge it for another origin).
        if (!hasValidWsProtocol(request, options.secret()))
          return { accept: false, response: unauthorizedResponse() }
        const notExtension = checkExtensionOrigin(request)
        if (notExtension) return { accept: false, response: notExtension }
        const decision = await entry.upgrade(
          request,
          routeContext(request, { role: 'extension', name: 'extension' }),
        )
        if (!('onOpen' in decision)) return { accept: false, response: decision }
        return { accept: true, protocol: WS_SUBPROTOCOL, onOpen: decision.onOpen }
      } catch (error) {
        return { accept: false, response: failure(error, request) }
      }
    },
  }
}

/** The path of a request target (`/audit?limit=5` -> `/audit`). */
const pathOf = (target: string): string => {
  const query = target.indexOf('?')
  return query === -1 ? target : target.slice(0, query)
}

function routeContext(request: HttpRequest, caller: Caller | null): RouteContext {
  let url: URL | undefined
  return {
    get url() {
      return (url ??= new URL(request.target, `http://${LOOPBACK_HOST}`))
    },
    authenticated: caller !== null,
    caller,
    // Read only if a route asks (the uws engine asks the socket for it).
    get remoteAddress() {
      return request.remoteAddress
    },
  }
}

function failure(error: unknown, request: HttpRequest): HttpReply {
  if (isBridgeError(error) && error.code in HTTP_STATUS_BY_CODE)
    return errorResponse(error.code as HttpErrorCode, error.message)
  const path = pathOf(request.target)
  // A client that went away mid-request is not a server fault.
  if (request.aborted) {
    logger.debug(`${request.method} ${path} abandoned by the client`)
    return errorResponse('bad_request', 'request aborted')
  }
  logger.error(`${request.method} ${path} failed:`, error)
  return errorResponse('internal_error', 'internal error; see server.log')
}
