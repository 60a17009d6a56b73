/**
 * The EngineSocket over a uWebSockets.js WebSocket. uWS forbids touching a socket after its close
 * handler ran, so every call checks `closed` first.
 */
import type * as Uws from 'uWebSockets.js'
import type { EngineSocket } from './engine'
import { writeSoon } from './uwsOutbox'

/** What the uws engine keeps on each socket. */
export interface UwsSocketData {
  onOpen: (socket: EngineSocket) => void
  socket: UwsEngineSocket | undefined
  remoteAddress: string
}

export interface UwsEngineSocket extends EngineSocket {
  deliverMessage(text: string): void
  deliverClose(code: number, reason: string): void
}

const SEND_DROPPED = 2

export function createUwsSocket(ws: Uws.WebSocket<UwsSocketData>): UwsEngineSocket {
  let closed = false
  let onMessage: (text: string) => void = () => undefined
  let onClose: (code: number, reason: string) => void = () => undefined
  let pending: string[] = []
  const flush = () => {
    const frames = pending
    pending = []
    if (closed || frames.length === 0) return
    ws.cork(() => {
      for (const text of frames) {
        // Past maxBackpressure uWS drops the message; a peer that far behind is closed instead.
        if (ws.send(text, false) === SEND_DROPPED) return void ws.end(1013, 'peer is not reading')
      }
    })
  }
  return {
    remoteAddress: ws.getUserData().remoteAddress,
    get bufferedAmount() {
      return closed ? 0 : ws.getBufferedAmount()
    },
    send(text) {
      if (closed) return
      // Frames sent in one turn leave together, in one send under the socket's cork (./uwsOutbox.ts).
      if (pending.push(text) === 1) writeSoon(flush)
    },
    close(code = 1000, reason = '') {
      if (closed) return
      // Frames sent before the close leave before it.
      flush()
      if (!closed) ws.end(code, reason)
    },
    onMessage(listener) {
      onMessage = listener
    },
    onClose(listener) {
      onClose = listener
    },
    deliverMessage(text) {
      onMessage(text)
    },
    deliverClose(code, reason) {
      closed = true
      onClose(code, reason)
    },
  }
}
