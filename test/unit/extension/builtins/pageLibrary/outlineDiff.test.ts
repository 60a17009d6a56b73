import { describe, expect, it } from 'vitest'
import { diffOutline, renderDiff } from '../../../../../extension/builtins/pageLibrary/outlineDiff'

const before = [
  '- main:',
  ' - heading "Inbox" [level=1]',
  ' - list "Messages":',
  '  - listitem [ref=e5]: Ada Budget',
  ' - region "Message": text: Loading…',
].join('\n')

describe('diffOutline', () => {
  it('gives the new and changed lines under the unchanged parents that place them, and what went away', () => {
    const after = [
      '- main:',
      ' - heading "Inbox" [level=1]',
      ' - list "Messages":',
      '  - listitem [ref=e5]: Ada Budget',
      ' - region "Message":',
      '  - heading "Budget" [level=2]',
      '  - button "Reply" [ref=e9]',
    ].join('\n')
    expect(diffOutline(before, after)).toEqual({
      added: [
        '- main:',
        ' - region "Message":',
        '  - heading "Budget" [level=2]',
        '  - button "Reply" [ref=e9]',
      ],
      removed: [' - region "Message": text: Loading…'],
    })
  })

  it('ignores focus moving, and leaves out the lines of the fields the action set itself', () => {
    const form = '- textbox "Name" [ref=e1]\n- textbox "City" [ref=e2]'
    const typed = '- textbox "Name" [focused] [ref=e1]: Ada\n- textbox "City" [ref=e2]\n- text: 3 left'
    expect(diffOutline(form, typed, ['e1'])).toEqual({ added: ['- text: 3 left'], removed: [] })
  })

  it('counts a changed line with the same ref as changed, not removed', () => {
    const diff = diffOutline(
      '- row: 1 | button "Ship" [ref=e3]',
      '- row: 1 | button "Ship" [disabled] [ref=e3]',
    )
    expect(diff.removed).toEqual([])
    expect(diff.added).toEqual(['- row: 1 | button "Ship" [disabled] [ref=e3]'])
  })
})

describe('renderDiff', () => {
  it('says when nothing changed', () => {
    expect(renderDiff({ added: [], removed: [] }, 1_000)).toBe('No change on the page.')
  })

  it('cuts the added lines at its room with a marker, and lists a few removed lines', () => {
    const added = Array.from({ length: 50 }, (_, i) => `- text: line ${i}`)
    const removed = Array.from({ length: 8 }, (_, i) => `- text: old ${i}`)
    const text = renderDiff({ added, removed }, 100)
    expect(text).toContain('- text: line 0')
    expect(text).not.toContain('line 49')
    expect(text).toMatch(
      /\[cut at the budget: \d+ more changed lines; browser_snapshot for the page, or browser_find\]/,
    )
    expect(text).toContain(
      'Gone: - text: old 0 / - text: old 1 / - text: old 2 / - text: old 3 / - text: old 4 and 3 more',
    )
  })
})
