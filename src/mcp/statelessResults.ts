/**
 * What every answer of the stateless revision (2026-07-28) carries: `resultType`, the server's
 * identity in `_meta`, and errors with the request's id at the HTTP status the revision pairs with
 * their code.
 */
import type { HttpReply } from '../http/engine'
import { jsonTextResponse } from '../http/responses'
import { BRIDGE_VERSION } from '../protocol'
import { JsonRpcErrorCode } from '../protocol/errors'
import { errorJson, type RpcId } from './callRunner'

/** `_meta` keys of the stateless revision. */
export const META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  logLevel: 'io.modelcontextprotocol/logLevel',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
} as const

export const SERVER_INFO = { name: 'bridge', version: BRIDGE_VERSION }
export const RESULT_META = { [META.serverInfo]: SERVER_INFO }
export const EVENT_STREAM_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' }

/** JSON-RPC error code -> HTTP status, as the stateless revision pairs them. */
const statusOf = (code: number): number =>
  code === JsonRpcErrorCode.methodNotFound ? 404 : code === JsonRpcErrorCode.internalError ? 500 : 400

/** The fields every stateless result ends with, serialized once. */
const RESULT_TAIL = `"resultType":"complete","_meta":${JSON.stringify(RESULT_META)}}`

/** A result with the fields every stateless result carries, serialized. */
export const resultText = (result: Record<string, unknown>): string => {
  if (result._meta !== undefined || 'resultType' in result)
    return JSON.stringify({
      ...result,
      resultType: 'complete',
      _meta: { ...(result._meta as Record<string, unknown> | undefined), ...RESULT_META },
    })
  // The common case (a tool's result): its JSON with the tail put in, not a copy of the object.
  const json = JSON.stringify(result)
  return json === '{}' ? `{${RESULT_TAIL}` : `${json.slice(0, -1)},${RESULT_TAIL}`
}

export const errorReply = (
  id: RpcId | null,
  code: number,
  message: string,
  data?: Record<string, unknown>,
): HttpReply =>
  jsonTextResponse(
    data === undefined
      ? errorJson(id, code, message)
      : JSON.stringify({ jsonrpc: '2.0', id, error: { code, message, data } }),
    statusOf(code),
  )
