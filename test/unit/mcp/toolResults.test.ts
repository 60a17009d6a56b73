import { describe, expect, it } from 'vitest'
import { DEFAULT_LIMITS, limitsFromEnv } from '../../../src/calls/limits'
import { capText, toCallToolResult } from '../../../src/mcp/toolResults'
import { browserToolNarrowing } from '../../../src/tools'

describe('toCallToolResult', () => {
  it('turns outputs into compact JSON text, keeping strings as they are', () => {
    expect(toCallToolResult({ ok: true, output: { a: [1, 2] } }, 1000)).toEqual({
      content: [{ type: 'text', text: '{"a":[1,2]}' }],
    })
    expect(toCallToolResult({ ok: true, output: 'plain' }, 1000)).toEqual({
      content: [{ type: 'text', text: 'plain' }],
    })
    expect(toCallToolResult({ ok: true, output: undefined }, 1000)).toEqual({
      content: [{ type: 'text', text: 'null' }],
    })
  })

  it('turns an image output into MCP image content, and only a real image', () => {
    expect(
      toCallToolResult({ ok: true, output: { type: 'image', data: 'AAAA', mimeType: 'image/jpeg' } }, 10),
    ).toEqual({
      content: [{ type: 'image', data: 'AAAA', mimeType: 'image/jpeg' }],
    })
    const notImage = { type: 'image', data: 'AAAA', mimeType: 'text/html' }
    expect(toCallToolResult({ ok: true, output: notImage }, 1000).content[0]?.type).toBe('text')
  })

  it('turns a failure into an error result with [code] message', () => {
    expect(
      toCallToolResult(
        { ok: false, error: { code: 'tab_closed', message: 'open the site first', category: 'tab' } },
        10,
      ),
    ).toEqual({ isError: true, content: [{ type: 'text', text: '[tab_closed] open the site first' }] })
  })
})

describe('capText', () => {
  it('leaves text within the limit alone', () => {
    expect(capText('hello', 5)).toBe('hello')
  })

  it('cuts at a byte limit without splitting a character, marker included, and says how to ask for less', () => {
    const text = 'é'.repeat(200) // 400 bytes
    const marker =
      '\n[truncated: the result was 400 bytes, cut to 200; to get less, call again with arguments that select fewer items or a smaller part]'
    const markerBytes = Buffer.byteLength(marker)
    const cut = capText(text, 200)
    expect(cut).toBe(`${'é'.repeat(Math.floor((200 - markerBytes) / 2))}${marker}`)
    expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(200)
  })

  it('names the arguments of a built-in tool that narrow its result', () => {
    const snapshot = toCallToolResult(
      { ok: true, output: 'x'.repeat(1000) },
      400,
      browserToolNarrowing('browser_snapshot'),
    )
    const text = snapshot.content[0]?.type === 'text' ? snapshot.content[0].text : ''
    expect(text).toMatch(
      /\n\[truncated: the result was 1000 bytes, cut to 400; to get less, pass selector to snapshot one part of the page, depth to leave out nesting, or use browser_find or browser_query\]$/,
    )
    expect(text.length).toBeLessThanOrEqual(400)
    // Every built-in tool has a hint; plugin tools get the generic one.
    expect(browserToolNarrowing('browser_click')).toMatch(/^pass ref or selector/)
    expect(browserToolNarrowing('notes_list_notes')).toBeUndefined()
  })
})

describe('limitsFromEnv', () => {
  it('reads positive integers and ignores anything else', () => {
    expect(limitsFromEnv({})).toEqual(DEFAULT_LIMITS)
    const limits = limitsFromEnv({
      BRIDGE_TOOL_TIMEOUT_MS: '1500',
      BRIDGE_APPROVAL_TIMEOUT_MS: '-5',
      BRIDGE_AUDIT_ROTATE_BYTES: '1e3',
    })
    expect(limits.toolTimeoutMs).toBe(1500)
    expect(limits.approvalTimeoutMs).toBe(DEFAULT_LIMITS.approvalTimeoutMs)
    expect(limits.auditRotateBytes).toBe(DEFAULT_LIMITS.auditRotateBytes)
    expect(DEFAULT_LIMITS).toMatchObject({
      toolTimeoutMs: 30_000,
      toolMaxDurationMs: 300_000,
      resultMaxBytes: 102_400,
      maxMcpSessions: 100,
    })
  })
})
