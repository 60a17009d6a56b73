/** JSON-RPC 2.0 envelopes as they travel on /ws. */
export type JsonRpcId = string | number

export interface JsonRpcRequest {
  jsonrpc: '2.0'
  id: JsonRpcId
  method: string
  params?: unknown
}
export interface JsonRpcNotification {
  jsonrpc: '2.0'
  method: string
  params?: unknown
}
export interface JsonRpcErrorObject {
  code: number
  message: string
  data?: unknown
}
export interface JsonRpcSuccess {
  jsonrpc: '2.0'
  id: JsonRpcId
  result: unknown
}
export interface JsonRpcFailure {
  jsonrpc: '2.0'
  id: JsonRpcId | null
  error: JsonRpcErrorObject
}
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcSuccess | JsonRpcFailure

/** `data` of a -32003 tool error from the extension. */
export interface ToolErrorData {
  code: string
  category?: string
  retryable?: boolean
}
