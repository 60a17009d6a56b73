import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import type { ToolOutcome } from '../../machines/toolInvocationMachine'
import { NO_PAGE_TEXT, type PageTextRule } from '../catalog/pageText'
import { jsonTextOf } from '../protocol/jsonText'
import {
  PAGE_CONTENT_CLOSE,
  PAGE_CONTENT_OPEN,
  withoutMarkerChars,
  wrapPageContent,
} from '../protocol/pageContent'
import { isSiteBlocksOutput, type SiteBlocksOutput } from '../sites/siteResult'

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

/** For plugin tools, whose arguments the daemon cannot know. */
export const NARROW_PLUGIN_TOOL = 'call again with arguments that select fewer items or a smaller part'

/**
 * Cuts text to `maxBytes` of UTF-8 and says so at the end, with how to ask for less (`narrow`): the
 * marker is part of the cap, so the whole text never exceeds it.
 */
export function capText(text: string, maxBytes: number, narrow: string = NARROW_PLUGIN_TOOL): string {
  // Most results fit: their length in UTF-8 is counted without encoding them.
  if (Buffer.byteLength(text, 'utf8') <= maxBytes) return text
  const bytes = new TextEncoder().encode(text)
  if (bytes.length <= maxBytes) return text
  const marker = `\n[truncated: the result was ${bytes.length} bytes, cut to ${maxBytes}; to get less, ${narrow}]`
  const room = Math.max(0, maxBytes - new TextEncoder().encode(marker).length)
  const head = new TextDecoder().decode(bytes.subarray(0, room)).replace(/\uFFFD+$/, '')
  return `${head}${marker}`
}

/**
 * A call's outcome as an MCP result: compact JSON text (capped, saying how to `narrow` the call), an image as MCP image content, and
 * every failure as `isError: true` with one text block `[<code>] <message>`. For a tool with an
 * output schema (`structured`, its output checked against it already) the output also goes as
 * `structuredContent`, the text kept for clients that read only text; such an output is never cut,
 * so one over the cap is refused as a whole, with how to ask for less.
 * Text a page wrote (`pageText`, src/catalog/pageText.ts) is put between the page-content markers,
 * which come on top of the cap (`structuredContent`, whose shape its schema fixes, is not marked).
 */
export function toCallToolResult(
  outcome: ToolOutcome | undefined,
  maxBytes: number,
  narrow?: string,
  structured = false,
  pageText: PageTextRule = NO_PAGE_TEXT,
): CallToolResult {
  const result = resultOf(outcome, maxBytes, narrow, structured, pageText)
  // The origins the output was read from (the data-flow guard's labels), for clients that track them.
  if (outcome?.ok && outcome.origins?.length && !result.isError)
    return { ...result, _meta: { [ORIGINS_META]: outcome.origins } }
  return result
}

/** The `_meta` key of a result's origins: the sites its content was read from. */
export const ORIGINS_META = 'bridge/origins'

function resultOf(
  outcome: ToolOutcome | undefined,
  maxBytes: number,
  narrow: string | undefined,
  structured: boolean,
  pageText: PageTextRule,
): CallToolResult {
  if (!outcome)
    return {
      isError: true,
      content: [{ type: 'text', text: '[tool_error] the call ended without a result' }],
    }
  if (!outcome.ok) {
    const { code, message } = outcome.error
    // A plugin's error message may quote the page: marked inline, on the error's one line.
    const shown =
      code === 'tool_error' && pageText.errors
        ? `${PAGE_CONTENT_OPEN} ${withoutMarkerChars(message)} ${PAGE_CONTENT_CLOSE}`
        : message
    return { isError: true, content: [{ type: 'text', text: `[${code}] ${shown}` }] }
  }
  const { output } = outcome
  if (isSiteBlocksOutput(output)) return siteBlocksResult(output, maxBytes, narrow)
  if (isImage(output)) return { content: [{ type: 'image', data: output.data, mimeType: output.mimeType }] }
  const text = typeof output === 'string' ? output : jsonTextOf(output)
  const marked = pageText.output(output)
  if (structured && isPlainObject(output)) {
    const bytes = Buffer.byteLength(text, 'utf8')
    if (bytes > maxBytes)
      return {
        isError: true,
        content: [
          {
            type: 'text',
            text: `[tool_error] the structured result was ${bytes} bytes, over the ${maxBytes}-byte cap; to get less, ${narrow ?? NARROW_PLUGIN_TOOL}`,
          },
        ],
      }
    return {
      content: [{ type: 'text', text: marked ? wrapPageContent(withoutMarkerChars(text)) : text }],
      structuredContent: output,
    }
  }
  if (!marked) return { content: [{ type: 'text', text: capText(text, maxBytes, narrow) }] }
  // Neutralized first, then cut to the cap; the two marker lines come on top (a fixed ~80 bytes), so a
  // tool's own budget (a snapshot's maxLength, up to the cap) is never cut again here.
  const capped = capText(withoutMarkerChars(text), maxBytes, narrow)
  return { content: [{ type: 'text', text: wrapPageContent(capped) }] }
}

/**
 * An MCP-shaped result of a site's tool, passed through: bridge's note on whose content it is first,
 * then the site's blocks, each text between the page-content markers; the texts share the cap.
 */
function siteBlocksResult(
  output: SiteBlocksOutput,
  maxBytes: number,
  narrow: string | undefined,
): CallToolResult {
  const { content, ...note } = output
  let room = maxBytes
  const blocks = content.map((block) => {
    if (block.type === 'image') return block
    const text = capText(withoutMarkerChars(block.text), Math.max(0, room), narrow)
    room -= Buffer.byteLength(text, 'utf8')
    return { type: 'text' as const, text: wrapPageContent(text) }
  })
  return { content: [{ type: 'text', text: JSON.stringify(note) }, ...blocks] }
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
