/**
 * An outgoing WebSocket, only ever to this machine: the development inspector (src/machineInspector.ts)
 * streams actor events through it. It lives here because only src/http touches the `ws` package.
 */
import WebSocket from 'ws'
import { BridgeError, BridgeErrorCode } from '../errors'
import { LOOPBACK_HOSTNAMES } from './front'

/** A parsed ws:// URL on a loopback address; anything else is refused before any connection. */
export function loopbackSocketUrl(raw: string, what: string): URL {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new BridgeError(BridgeErrorCode.inspectUnavailable, `${what} is not a URL (got "${raw}")`)
  }
  if (url.protocol !== 'ws:' || !LOOPBACK_HOSTNAMES.includes(url.hostname) || url.username || url.password)
    throw new BridgeError(
      BridgeErrorCode.inspectUnavailable,
      `${what} must be a ws:// address on this machine (127.0.0.1, localhost or [::1]); got "${url.protocol}//${url.host}"`,
    )
  return url
}

export interface ClientSocket {
  /** Sends when open; returns false when the socket is not open (the caller keeps the text). */
  send(text: string): boolean
  close(): void
}

export interface ClientSocketHandlers {
  open(): void
  /** Called once, whether the socket never opened or closed later. */
  closed(reason: string): void
}

export function openClientSocket(url: URL, handlers: ClientSocketHandlers): ClientSocket {
  const socket = new WebSocket(url, { handshakeTimeout: 5_000, maxPayload: 64 * 1024 })
  let closed = false
  const finish = (reason: string) => {
    if (closed) return
    closed = true
    handlers.closed(reason)
  }
  socket.on('open', () => handlers.open())
  socket.on('error', (error) => finish(error.message))
  socket.on('close', (code) => finish(`closed (${code})`))
  // The inspector server may talk back; nothing it says is acted on.
  socket.on('message', () => undefined)
  return {
    send(text) {
      if (socket.readyState !== WebSocket.OPEN) return false
      socket.send(text)
      return true
    },
    close() {
      closed = true
      if (socket.readyState === WebSocket.CONNECTING) socket.terminate()
      else socket.close()
    },
  }
}
