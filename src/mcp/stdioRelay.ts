/**
 * `bridge mcp`: MCP over stdin/stdout for clients that can only spawn a process (Claude Desktop),
 * relayed message by message to the running daemon's `/mcp` with a named client's token. Every
 * JSON-RPC message passes through unchanged in both directions, so tools/list, tools/call, progress,
 * logging and tools/list_changed behave exactly as over HTTP. Only protocol goes to stdout; diagnostics
 * go to `diagnostics` (stderr).
 */
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import type { Readable, Writable } from 'node:stream'

/** JSON-RPC error code for "the daemon could not be reached or refused the request". */
const RELAY_ERROR_CODE = -32000

export interface StdioRelayOptions {
  /** e.g. `http://127.0.0.1:9515/mcp` */
  url: string
  token: string
  stdin?: Readable
  stdout?: Writable
  diagnostics: (line: string) => void
}

export interface StdioRelay {
  /** Resolves when stdin ends (the client closed us) and the daemon session was ended. */
  closed: Promise<void>
}

export async function startStdioRelay(options: StdioRelayOptions): Promise<StdioRelay> {
  const local = new StdioServerTransport(options.stdin, options.stdout)
  const remote = new StreamableHTTPClientTransport(new URL(options.url), {
    requestInit: { headers: { authorization: `Bearer ${options.token}` } },
  })
  let ending = false
  let resolveClosed: () => void = () => undefined
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve))

  const answerWithError = (message: JSONRPCMessage, text: string): void => {
    if (!('method' in message) || !('id' in message)) return
    void local.send({ jsonrpc: '2.0', id: message.id, error: { code: RELAY_ERROR_CODE, message: text } })
  }

  local.onmessage = (message) => {
    remote.send(message).catch((error: unknown) => {
      const text = describe(error, options.url)
      options.diagnostics(`bridge mcp: ${text}`)
      answerWithError(message, text)
    })
  }
  remote.onmessage = (message) => {
    // The HTTP transport must send the negotiated version on every later request.
    if ('result' in message && isRecord(message.result) && typeof message.result.protocolVersion === 'string')
      remote.setProtocolVersion(message.result.protocolVersion)
    local.send(message).catch((error: unknown) => options.diagnostics(`bridge mcp: stdout: ${String(error)}`))
  }
  remote.onerror = (error) => {
    if (!ending) options.diagnostics(`bridge mcp: ${describe(error, options.url)}`)
  }
  local.onerror = (error) => options.diagnostics(`bridge mcp: stdin: ${error.message}`)
  local.onclose = () => {
    if (ending) return
    ending = true
    void remote
      .terminateSession()
      .catch(() => undefined)
      .then(() => remote.close())
      .finally(resolveClosed)
  }

  await remote.start()
  await local.start()
  // StdioServerTransport reports only an explicit close(); the end of stdin is ours to notice.
  ;(options.stdin ?? process.stdin).once('end', () => void local.close())
  return { closed }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null
}

/** A message for the user that never carries the token. */
function describe(error: unknown, url: string): string {
  const text = error instanceof Error ? error.message : String(error)
  if (error instanceof StreamableHTTPError && error.code === 401)
    return `the daemon at ${url} refused BRIDGE_CLIENT_TOKEN (HTTP 401): the client was removed or the token is wrong; \`bridge client show <name> --show-secret\` prints a current one`
  if (/fetch failed|ECONNREFUSED/i.test(text))
    return `no bridge daemon answers at ${url} (start it with \`bridge start\`)`
  return `${url}: ${text}`
}
