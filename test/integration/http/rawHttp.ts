/**
 * A raw HTTP/1.1 exchange over a net socket, for requests fetch cannot make: duplicate or missing
 * Host headers, chunked bodies that grow past the cap, WebSocket handshakes we inspect by hand.
 */
import { connect } from 'node:net'

export interface RawResponse {
  /** 0 when the server closed the connection (or stayed silent until the timeout) without answering. */
  status: number
  headers: Record<string, string>
  body: string
  /** Everything the server sent. */
  raw: string
}

/**
 * Sends `head` (CRLF lines, without the blank line) and optional body chunks; reads until the server
 * closes the connection or `timeoutMs` passes.
 */
export function rawRequest(
  port: number,
  headLines: string[],
  body: Buffer[] = [],
  timeoutMs = 10_000,
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    const chunks: Buffer[] = []
    const timer = setTimeout(() => socket.destroy(), timeoutMs)
    socket.on('data', (chunk) => chunks.push(chunk))
    // A server that refuses mid-body may reset the connection; what it sent first still counts.
    socket.on('error', () => undefined)
    socket.on('close', () => {
      clearTimeout(timer)
      const raw = Buffer.concat(chunks).toString('latin1')
      try {
        resolve(parse(raw))
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)))
      }
    })
    socket.on('connect', () => {
      socket.write(`${headLines.join('\r\n')}\r\n\r\n`)
      void (async () => {
        // Body chunks go out one at a time and stop once the server has answered (e.g. 413 mid-body).
        for (const chunk of body) {
          if (socket.destroyed || chunks.length > 0) return
          await new Promise<void>((done) => socket.write(chunk, () => done()))
        }
      })()
    })
  })
}

/** A GET with the given header lines (Host included only if you pass one) and `Connection: close`. */
export function rawGet(
  port: number,
  path: string,
  headers: string[],
  timeoutMs?: number,
): Promise<RawResponse> {
  return rawRequest(port, [`GET ${path} HTTP/1.1`, ...headers, 'Connection: close'], [], timeoutMs)
}

function parse(raw: string): RawResponse {
  if (raw === '') return { status: 0, headers: {}, body: '', raw }
  const end = raw.indexOf('\r\n\r\n')
  if (end < 0) throw new Error(`incomplete response: ${JSON.stringify(raw)}`)
  const [statusLine, ...lines] = raw.slice(0, end).split('\r\n')
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '')?.[1])
  const headers: Record<string, string> = {}
  for (const line of lines) {
    const colon = line.indexOf(':')
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
  }
  let body = raw.slice(end + 4)
  if (headers['transfer-encoding']?.includes('chunked')) body = dechunk(body)
  return { status, headers, body, raw }
}

function dechunk(text: string): string {
  let out = ''
  let rest = text
  for (;;) {
    const lineEnd = rest.indexOf('\r\n')
    if (lineEnd < 0) return out
    const size = parseInt(rest.slice(0, lineEnd), 16)
    if (!size) return out
    out += rest.slice(lineEnd + 2, lineEnd + 2 + size)
    rest = rest.slice(lineEnd + 2 + size + 2)
  }
}
