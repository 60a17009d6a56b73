import { describe, expect, it } from 'vitest'
import { hintWords, toolKind } from '../../../extension/sidepanel/toolKind'

describe('toolKind', () => {
  it('shows only what a tool declares: no badge for a tool that declares nothing', () => {
    expect(toolKind(undefined)).toBeUndefined()
    expect(toolKind({})).toBeUndefined()
    expect(toolKind({ readOnlyHint: false, destructiveHint: false })).toBeUndefined()
  })

  it('names a read-only tool and a destructive one', () => {
    expect(toolKind({ readOnlyHint: true, openWorldHint: false })).toBe('read-only')
    expect(toolKind({ readOnlyHint: false, destructiveHint: true })).toBe('destructive')
  })

  it('shows the cautious claim when the hints contradict each other', () => {
    expect(toolKind({ readOnlyHint: true, destructiveHint: true })).toBe('destructive')
  })
})

describe('hintWords', () => {
  it('puts every declared hint in words, in a fixed order', () => {
    expect(
      hintWords({ readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false }),
    ).toEqual([
      'changes things',
      'may delete or overwrite data',
      'repeating it has no further effect',
      'stays within the page',
    ])
    expect(hintWords(undefined)).toEqual([])
  })
})
