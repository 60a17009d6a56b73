/**
 * `GET /proof?nonce=<64 hex>`: the daemon shows it knows the secret without revealing it, so the CLI
 * and the extension can tell the real daemon from another program on the port before they send the
 * secret. Needs no token; answers only well-formed nonces, only with the HMAC.
 *
 * It is also the one endpoint anyone may ask, so it must not be spent by others:
 * - a request a web page made (`<img>`, a navigation, a no-cors fetch: its `Sec-Fetch-*` headers say
 *   so) is refused before it counts; a page's CORS request carries its Origin and the gate refused it;
 * - callers that hold the secret prove it with `caller` (see PROOF_CALLER_CONTEXT) and are not counted;
 * - everyone else is counted per kind: the extension's Origin, and any other local process.
 */
import { createHmac, timingSafeEqual } from 'node:crypto'
import {
  EXTENSION_ORIGIN,
  PROOF_CALLER_CONTEXT,
  PROOF_CONTEXT,
  PROOF_FROM_EXTENSION,
  PROOF_NONCE_PATTERN,
  PROOF_PATH,
  PROOF_RATE_LIMIT_PER_MIN,
  RATE_LIMIT_WINDOW_MS,
} from '../protocol/constants'
import type { HeaderSource } from './front'
import { createRateLimiter } from './rateLimit'
import { errorResponse, jsonResponse, rateLimitedResponse } from './responses'
import type { Route } from './route'

/** hex(HMAC-SHA256(secret, "bridge-proof:" + nonce)). */
export function proofFor(secret: string, nonce: string): string {
  return createHmac('sha256', secret).update(`${PROOF_CONTEXT}${nonce}`).digest('hex')
}

/** hex(HMAC-SHA256(secret, "bridge-caller:" + nonce)): what a holder of the secret sends as `caller`. */
export function callerProofFor(secret: string, nonce: string): string {
  return createHmac('sha256', secret).update(`${PROOF_CALLER_CONTEXT}${nonce}`).digest('hex')
}

/**
 * True when the browser says a page made this request. Node's fetch sends `Sec-Fetch-Mode: cors` and
 * nothing else; `<img>`, `<script>`, frames, navigations and no-cors fetches send another mode, a
 * destination, or a site other than `none`. The extension's own requests carry its Origin instead.
 */
export function isPageRequest(request: HeaderSource): boolean {
  if (request.header('origin') === EXTENSION_ORIGIN) return false
  const site = request.header('sec-fetch-site')
  const mode = request.header('sec-fetch-mode')
  const dest = request.header('sec-fetch-dest')
  return (
    (site !== null && site !== 'none') ||
    (mode !== null && mode !== 'cors') ||
    (dest !== null && dest !== 'empty') ||
    request.header('sec-fetch-user') !== null
  )
}

/** Nonces already used with a valid `caller`, with when (a replay is counted like any request). */
const MAX_REMEMBERED_NONCES = 10_000

/**
 * What the daemon saw of the extension's proof requests (`from=extension`): when one last came
 * with a `caller` made from this daemon's secret, and when one last came with a `caller` made from
 * another secret (an extension loaded from another config folder, or a copy whose auth.json predates a
 * new secret). `bridge doctor` tells these apart from "no extension ever asked" (a browser profile
 * without the extension). A local process could send the same: what it gains is a wrong doctor line.
 */
export interface ExtensionSightings {
  /** Epoch ms. */
  provenAt?: number
  /** Epoch ms. */
  refusedAt?: number
}

export function proofRoute(
  secret: () => string | null,
  now: () => number = Date.now,
  sightings: ExtensionSightings = {},
): Route {
  const perKind = createRateLimiter({ limit: PROOF_RATE_LIMIT_PER_MIN, now })
  const used = new Map<string, number>()
  const fresh = (nonce: string): boolean => {
    const at = now()
    for (const [old, when] of used) {
      if (when > at - RATE_LIMIT_WINDOW_MS) break
      used.delete(old)
    }
    if (used.has(nonce) || used.size >= MAX_REMEMBERED_NONCES) return false
    used.set(nonce, at)
    return true
  }
  const holdsSecret = (current: string, nonce: string, caller: string | null): boolean =>
    caller !== null &&
    PROOF_NONCE_PATTERN.test(caller) &&
    timingSafeEqual(Buffer.from(caller, 'hex'), Buffer.from(callerProofFor(current, nonce), 'hex')) &&
    fresh(nonce)

  return {
    path: PROOF_PATH,
    auth: 'optional',
    methods: {
      GET: (request, { url }) => {
        if (isPageRequest(request))
          return errorResponse('forbidden_origin', 'requests from web pages are not allowed')
        const nonce = url.searchParams.get('nonce') ?? ''
        const caller = url.searchParams.getAll('caller')
        if (url.searchParams.getAll('nonce').length !== 1 || !PROOF_NONCE_PATTERN.test(nonce))
          return errorResponse('bad_request', 'nonce must be 64 lowercase hex characters')
        if (caller.length > 1) return errorResponse('bad_request', 'caller may be given once')
        const current = secret()
        if (current === null) return errorResponse('not_found', 'this daemon has no secret to prove')
        const fromExtension = request.header('origin') === EXTENSION_ORIGIN
        const holds = holdsSecret(current, nonce, caller[0] ?? null)
        const [fromKey, fromValue] = PROOF_FROM_EXTENSION.split('=')
        if (url.searchParams.get(fromKey!) === fromValue && caller[0] !== undefined) {
          if (holds) sightings.provenAt = now()
          else sightings.refusedAt = now()
        }
        if (!holds && !perKind.take(fromExtension ? 'extension' : 'local')) return rateLimitedResponse()
        return jsonResponse({ proof: proofFor(current, nonce) })
      },
    },
  }
}
