/**
 * The MCP SDK v2 client (`@modelcontextprotocol/client`, pinned) pinned to the stateless revision
 * 2026-07-28, over Streamable HTTP against a test daemon with a Bearer token: no initialize, no
 * session, every request carrying its `_meta`.
 *
 * @example
 *   const mcp = await connectMcpV2(daemon, token)
 *   const result = await mcp.client.callTool({ name: 'notes_list_notes', arguments: {} })
 *   await mcp.close()
 */
import { Client, StreamableHTTPClientTransport, type ClientCapabilities } from '@modelcontextprotocol/client'

export const STATELESS_REVISION = '2026-07-28'

export interface McpV2Connection {
  client: Client
  transport: StreamableHTTPClientTransport
  /** The requests the client sent, as the daemon received them (method and headers). */
  sent: { method: string; headers: Record<string, string> }[]
  close(): Promise<void>
}

export async function connectMcpV2(
  daemon: { url: string },
  token: string,
  options: {
    name?: string
    capabilities?: ClientCapabilities
    /** Answers `elicitation/create` (declare `elicitation` in capabilities too). */
    onElicit?: (params: { message: string; requestedSchema?: unknown }) => Promise<{
      action: 'accept' | 'decline' | 'cancel'
      content?: Record<string, string>
    }>
  } = {},
): Promise<McpV2Connection> {
  const sent: McpV2Connection['sent'] = []
  const recordingFetch: typeof fetch = async (input, init) => {
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as { method?: string }) : {}
    sent.push({
      method: body.method ?? '',
      headers: Object.fromEntries(new Headers(init?.headers).entries()),
    })
    return fetch(input, init)
  }
  const transport = new StreamableHTTPClientTransport(new URL(`${daemon.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
    fetch: recordingFetch,
  })
  const client = new Client(
    { name: options.name ?? 'v2-test-client', version: '2.0.0' },
    {
      capabilities: options.capabilities ?? {},
      versionNegotiation: { mode: { pin: STATELESS_REVISION } },
    },
  )
  const onElicit = options.onElicit
  if (onElicit)
    client.setRequestHandler('elicitation/create', async (request) => {
      const params = request.params as { message: string; requestedSchema?: unknown }
      return onElicit(params)
    })
  await client.connect(transport)
  return {
    client,
    transport,
    sent,
    close: () => client.close(),
  }
}
