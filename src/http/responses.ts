/**
 * Building JSON responses and the error body every refusal uses:
 * `{ "error": { "code": "<snake_case>", "message": "<human text>" } }`.
 */
import { HTTP_STATUS_BY_CODE, type HttpErrorCode } from '../protocol/errors'
import { RATE_LIMIT_WINDOW_MS } from '../protocol/constants'
import type { HttpReply } from './engine'

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' }

export function jsonResponse(body: unknown, status = 200, headers: Record<string, string> = {}): HttpReply {
  return jsonTextResponse(JSON.stringify(body), status, headers)
}

/** The same with a body serialized already (a cached `tools/list`, say). */
export function jsonTextResponse(
  text: string,
  status = 200,
  headers: Record<string, string> = {},
): HttpReply {
  return { status, headers: { ...JSON_HEADERS, ...headers }, body: text }
}

export function errorBody(
  code: HttpErrorCode,
  message: string,
): { error: { code: HttpErrorCode; message: string } } {
  return { error: { code, message } }
}

export function errorResponse(
  code: HttpErrorCode,
  message: string,
  headers: Record<string, string> = {},
): HttpReply {
  return jsonResponse(errorBody(code, message), HTTP_STATUS_BY_CODE[code], headers)
}

export function payloadTooLargeResponse(maxBytes: number): HttpReply {
  return errorResponse('payload_too_large', `request body exceeds ${maxBytes} bytes`, { connection: 'close' })
}

/** 429: by default "try again in a minute"; a limit that knows which it is and when it frees says so. */
export function rateLimitedResponse(
  message = 'too many requests; try again in a minute',
  retryAfterMs = RATE_LIMIT_WINDOW_MS,
): HttpReply {
  return errorResponse('rate_limited', message, {
    'retry-after': String(Math.max(1, Math.ceil(retryAfterMs / 1000))),
  })
}
