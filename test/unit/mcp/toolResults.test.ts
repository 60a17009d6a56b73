import { describe, expect, it } from 'vitest'
import { DEFAULT_LIMITS, limitsFromEnv } from '../../../src/mcp/limits'
import { capText, toCallToolResult } from '../../../src/mcp/toolResults'

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

  it('cuts at a byte limit without splitting a character and says so', () => {
    const text = 'ééééé' // 10 bytes
    expect(capText(text, 5)).toBe('éé\n[truncated: the result was 10 bytes; only the first 5 are shown]')
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
