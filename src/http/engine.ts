/**
 * The one interface both HTTP engines implement. Everything above it (security gate, routes, MCP,
 * the extension socket) speaks `HttpRequest` / `HttpReply` and `EngineSocket`, so it never imports
 * `ws` or uWebSockets.js and runs unchanged on either engine.
 */

export type EngineName = 'node' | 'uws'

/**
 * One HTTP request as the layers above the engine see it: what they read and nothing more, so neither
 * engine builds a Web `Request` (headers, streams, an `AbortSignal`) for every request it serves.
 */
export interface HttpRequest {
  /** Upper case, as sent. */
  readonly method: string
  /** The path and query as sent, e.g. `/audit?limit=5`. */
  readonly target: string
  /** A header's value, by lower-case name; several lines of one header arrive joined with ", ". */
  header(name: string): string | null
  readonly remoteAddress: string
  /**
   * The whole body as text. The engine counts it against `maxBodyBytes`: past the cap it answers 413
   * itself and this rejects with `payload_too_large`. A body nobody reads is discarded unread.
   */
  text(): Promise<string>
  /** True once the client went away before its answer was written. */
  readonly aborted: boolean
}

/** A whole answer: status, lower-case header names, and a body that is text or an event stream. */
export interface HttpReply {
  status: number
  headers: Record<string, string>
  body?: string | EventStream
}

/**
 * A `text/event-stream` body that the layers above push into. The engine writes the head, calls
 * `open` with the sink, and writes each piece as it comes: what is written in one turn leaves in one
 * write. A client that stops reading is cut off past EVENT_STREAM_MAX_BUFFERED_BYTES unread.
 */
export interface EventStream {
  open(sink: EventSink): void
}

export interface EventSink {
  /** Queues text for the client; a no-op once closed. */
  write(text: string): void
  /** Ends the stream (the response completes). */
  end(): void
  /** Called once, when the stream ends for any reason (ended, client gone, cut off, server stopping). */
  onClose(listener: () => void): void
}

/** Answers one HTTP request. */
export type HttpHandler = (request: HttpRequest) => Promise<HttpReply>

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
  | { accept: false; response: HttpReply }

/** Decides on an upgrade. The request has no body. */
export type UpgradeHandler = (request: HttpRequest) => Promise<UpgradeDecision>

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
