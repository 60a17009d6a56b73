import { describe, expect, it } from 'vitest'
import { toCallToolResult } from '../../../src/mcp/toolResults'

describe('toCallToolResult for a tool with an output schema', () => {
  it('sends the output as structuredContent and the same as text', () => {
    expect(toCallToolResult({ ok: true, output: { id: 1 } }, 1000, undefined, true)).toEqual({
      content: [{ type: 'text', text: '{"id":1}' }],
      structuredContent: { id: 1 },
    })
  })

  it('never cuts a structured output: one over the cap fails whole, saying how to ask for less', () => {
    const result = toCallToolResult({ ok: true, output: { text: 'x'.repeat(500) } }, 100, 'pass limit', true)
    expect(result.isError).toBe(true)
    expect(result.structuredContent).toBeUndefined()
    expect(result.content).toEqual([
      {
        type: 'text',
        text: '[tool_error] the structured result was 511 bytes, over the 100-byte cap; to get less, pass limit',
      },
    ])
  })

  it('keeps text-only results for tools without one, and for outputs that are not objects', () => {
    expect(toCallToolResult({ ok: true, output: { id: 1 } }, 1000)).toEqual({
      content: [{ type: 'text', text: '{"id":1}' }],
    })
    expect(toCallToolResult({ ok: true, output: [1, 2] }, 1000, undefined, true)).toEqual({
      content: [{ type: 'text', text: '[1,2]' }],
    })
  })
})
