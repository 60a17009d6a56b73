/**
 * The one interface both HTTP engines implement. Everything above it (security gate, routes, MCP,
 * the extension socket) speaks Web `Request` / `Response` and `EngineSocket`, so it never imports
 * `ws` or uWebSockets.js and runs unchanged on either engine.
 */

export type EngineName = 'node' | 'uws'

export interface RequestInfo {
  remoteAddress: string
}

/**
 * Answers one HTTP request. The request body is a stream capped at `maxBodyBytes`; the request's
 * `signal` aborts when the client goes away. A streaming response body (SSE) is written with
 * backpressure and cancelled when the client disconnects.
 */
export type HttpHandler = (request: Request, info: RequestInfo) => Promise<Response>

/** A WebSocket as the layers above the engine see it: text frames only. */
export interface EngineSocket {
  readonly remoteAddress: string
  /** Bytes queued for sending but not yet written to the network. */
  readonly bufferedAmount: number
  /** Sends one text frame. A no-op once the socket is closed. */
  send(text: string): void
  close(code?: number, reason?: string): void
  /** One listener; set it in `onOpen` before returning. */
  onMessage(listener: (text: string) => void): void
  /** Called once, after the socket is closed for any reason. */
  onClose(listener: (code: number, reason: string) => void): void
}

/**
 * The decision on a WebSocket upgrade, made before the handshake completes: refuse with a real HTTP
 * response, or accept, select `protocol` and hand the open socket to `onOpen`.
 */
export type UpgradeDecision =
  | { accept: true; protocol: string; onOpen: (socket: EngineSocket) => void }
  | { accept: false; response: Response }

/** Decides on an upgrade. The request has no body. */
export type UpgradeHandler = (request: Request, info: RequestInfo) => Promise<UpgradeDecision>

/**
 * Bytes a peer may leave unread (a WebSocket's send queue, an event stream) before the engine cuts it
 * off: a client or an extension that stops reading must not make the daemon hold its traffic forever.
 * Three times the largest message (10 MB), so a slow but live peer is never mistaken for a stuck one.
 */
export const PEER_MAX_BUFFERED_BYTES = 32 * 1024 * 1024
/** The same for an MCP event stream, whose messages are smaller (a tool result is capped at 100 KB of text). */
export const EVENT_STREAM_MAX_BUFFERED_BYTES = 16 * 1024 * 1024

export interface EngineLimits {
  /** Request bodies above this get 413 (Content-Length up front and counted while streaming). */
  maxBodyBytes: number
  /** Largest WebSocket message accepted. */
  maxPayloadBytes: number
  /** Time allowed to receive the request headers. */
  headersTimeoutMs: number
  /** Time allowed to receive the whole request (headers and body); responses may stream longer. */
  requestTimeoutMs: number
  /** Open connections (HTTP and WebSocket) beyond this are refused. */
  maxConnections: number
}

export interface EngineOptions {
  handler: HttpHandler
  upgrade: UpgradeHandler
  limits: EngineLimits
}

export interface HttpEngine {
  readonly name: EngineName
  /** Binds `host:port` (port 0: a free port) and resolves with the bound port. Rejects with BridgeError `port_in_use`. */
  start(address: { host: string; port: number }): Promise<{ port: number }>
  /** Closes every socket and stops listening. */
  stop(): Promise<void>
}

export type EngineFactory = (options: EngineOptions) => HttpEngine
