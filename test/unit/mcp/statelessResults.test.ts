import { describe, expect, it } from 'vitest'
import { resultText, RESULT_META } from '../../../src/mcp/statelessResults'

describe('resultText', () => {
  it('adds resultType and the server identity to a tool result, keeping every field', () => {
    const result = { content: [{ type: 'text', text: 'a "quoted" }' }], structuredContent: { n: 1 } }
    expect(JSON.parse(resultText(result))).toEqual({ ...result, resultType: 'complete', _meta: RESULT_META })
  })

  it('merges a result’s own _meta with the server identity', () => {
    const result = { content: [], _meta: { 'bridge/x': 1 } }
    expect(JSON.parse(resultText(result))).toEqual({
      content: [],
      resultType: 'complete',
      _meta: { 'bridge/x': 1, ...RESULT_META },
    })
  })

  it('gives an empty result the fields too, and never two resultTypes', () => {
    expect(JSON.parse(resultText({}))).toEqual({ resultType: 'complete', _meta: RESULT_META })
    const text = resultText({ content: [], resultType: 'other' })
    expect(text.match(/"resultType"/g)).toHaveLength(1)
    expect(JSON.parse(text).resultType).toBe('complete')
  })
})
