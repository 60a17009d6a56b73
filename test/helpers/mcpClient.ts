/**
 * The real MCP SDK client over Streamable HTTP against a test daemon, with the Bearer token and a
 * record of the notifications it received.
 *
 * @example
 *   const mcp = await connectMcp(daemon)
 *   const result = await mcp.client.callTool({ name: 'notes_list_notes', arguments: {} })
 *   await mcp.close()
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import {
  LoggingMessageNotificationSchema,
  ToolListChangedNotificationSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js'
import { PAGE_CONTENT_CLOSE, PAGE_CONTENT_OPEN } from '../../src/protocol/pageContent'

export interface McpConnection {
  client: Client
  transport: StreamableHTTPClientTransport
  /** notifications/message params, in order. */
  logs: { level: string; logger?: string; data: unknown }[]
  /** How many notifications/tools/list_changed arrived. */
  listChanged(): number
  /** Resolves at the next tools/list_changed. */
  nextListChanged(timeoutMs?: number): Promise<void>
  close(): Promise<void>
}

export async function connectMcp(
  daemon: { url: string; secret: string },
  name = 'test-client',
): Promise<McpConnection> {
  const transport = new StreamableHTTPClientTransport(new URL(`${daemon.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${daemon.secret}` } },
  })
  const client = new Client({ name, version: '1.0.0' })
  const logs: McpConnection['logs'] = []
  let changed = 0
  let waiters: (() => void)[] = []
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params))
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    changed++
    const ready = waiters
    waiters = []
    for (const w of ready) w()
  })
  await client.connect(transport)
  return {
    client,
    transport,
    logs,
    listChanged: () => changed,
    nextListChanged: (timeoutMs = 10_000) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no tools/list_changed')), timeoutMs)
        waiters.push(() => {
          clearTimeout(timer)
          resolve()
        })
      }),
    async close() {
      await transport.terminateSession().catch(() => undefined)
      await client.close()
    },
  }
}

/** The text of a tool result's first content block, as the daemon sent it (page-content markers included). */
export function rawTextOf(result: unknown): string {
  const content = (result as CallToolResult).content
  const first = content[0]
  return first?.type === 'text' ? first.text : ''
}

/**
 * The text of a tool result's first content block, without the page-content marker lines the daemon
 * puts around text a page wrote (src/protocol/pageContent.ts): what the tool returned.
 */
export function textOf(result: unknown): string {
  return withoutPageMarkers(rawTextOf(result))
}

/**
 * Text without bridge's page-content markers: the two lines around a result, or the two marks around
 * a plugin's error message (`[tool_error] ⟪…⟫ message ⟪…⟫`), when it has them.
 */
export function withoutPageMarkers(text: string): string {
  const open = `${PAGE_CONTENT_OPEN}\n`
  const close = `\n${PAGE_CONTENT_CLOSE}`
  if (text.startsWith(open) && text.endsWith(close)) return text.slice(open.length, -close.length)
  const error = /^(\[[a-z_]+\] )(.*)$/s.exec(text)
  const inlineOpen = `${PAGE_CONTENT_OPEN} `
  const inlineClose = ` ${PAGE_CONTENT_CLOSE}`
  if (error && error[2]!.startsWith(inlineOpen) && error[2]!.endsWith(inlineClose))
    return `${error[1]}${error[2]!.slice(inlineOpen.length, -inlineClose.length)}`
  return text
}
