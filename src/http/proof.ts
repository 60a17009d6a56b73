/**
 * `GET /proof?nonce=<64 hex>`: the daemon shows it knows the secret without revealing it, so the CLI
 * and the extension can tell the real daemon from another program on the port before they send the
 * secret. Needs no token; answers only well-formed nonces, only with the HMAC, and is rate-limited.
 */
import { createHmac } from 'node:crypto'
import {
  PROOF_CONTEXT,
  PROOF_NONCE_PATTERN,
  PROOF_PATH,
  PROOF_RATE_LIMIT_PER_MIN,
} from '../protocol/constants'
import { createRateLimiter } from './rateLimit'
import { errorResponse, jsonResponse } from './responses'
import type { Route } from './route'

/** hex(HMAC-SHA256(secret, "bridge-proof:" + nonce)). */
export function proofFor(secret: string, nonce: string): string {
  return createHmac('sha256', secret).update(`${PROOF_CONTEXT}${nonce}`).digest('hex')
}

export function proofRoute(secret: () => string | null): Route {
  return {
    path: PROOF_PATH,
    auth: 'optional',
    rateLimit: createRateLimiter({ limit: PROOF_RATE_LIMIT_PER_MIN }),
    methods: {
      GET: (_request, { url }) => {
        const nonce = url.searchParams.get('nonce') ?? ''
        if (url.searchParams.getAll('nonce').length !== 1 || !PROOF_NONCE_PATTERN.test(nonce))
          return errorResponse('bad_request', 'nonce must be 64 lowercase hex characters')
        const current = secret()
        if (current === null) return errorResponse('not_found', 'this daemon has no secret to prove')
        return jsonResponse({ proof: proofFor(current, nonce) })
      },
    },
  }
}
