import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import type { ToolOutcome } from '../../machines/toolInvocationMachine'

interface ImageOutput {
  type: 'image'
  data: string
  mimeType: string
}

const isImage = (value: unknown): value is ImageOutput =>
  typeof value === 'object' &&
  value !== null &&
  (value as { type?: unknown }).type === 'image' &&
  typeof (value as { data?: unknown }).data === 'string' &&
  typeof (value as { mimeType?: unknown }).mimeType === 'string' &&
  (value as { mimeType: string }).mimeType.startsWith('image/')

/** Cuts text to `maxBytes` of UTF-8 and says so at the end. */
export function capText(text: string, maxBytes: number): string {
  const bytes = new TextEncoder().encode(text)
  if (bytes.length <= maxBytes) return text
  const head = new TextDecoder().decode(bytes.subarray(0, maxBytes)).replace(/\uFFFD+$/, '')
  return `${head}\n[truncated: the result was ${bytes.length} bytes; only the first ${maxBytes} are shown]`
}

/**
 * A call's outcome as an MCP result: compact JSON text (capped), an image as MCP image content, and
 * every failure as `isError: true` with one text block `[<code>] <message>`.
 */
export function toCallToolResult(outcome: ToolOutcome | undefined, maxBytes: number): CallToolResult {
  if (!outcome)
    return {
      isError: true,
      content: [{ type: 'text', text: '[tool_error] the call ended without a result' }],
    }
  if (!outcome.ok)
    return {
      isError: true,
      content: [{ type: 'text', text: `[${outcome.error.code}] ${outcome.error.message}` }],
    }
  const { output } = outcome
  if (isImage(output)) return { content: [{ type: 'image', data: output.data, mimeType: output.mimeType }] }
  const text = typeof output === 'string' ? output : (JSON.stringify(output) ?? 'null')
  return { content: [{ type: 'text', text: capText(text, maxBytes) }] }
}
