import { describe, expect, it } from 'vitest'
import { rankTabs, type TabCandidate } from '../../../extension/lib/tabChoice'

const tab = (tabId: number, over: Partial<TabCandidate> = {}): TabCandidate => ({
  tabId,
  ready: true,
  active: false,
  windowFocused: false,
  lastFocusedAt: 0,
  ...over,
})

describe('choosing the tab for a tool call', () => {
  it('puts the active tab of the focused window first, then other active tabs, then by recent focus', () => {
    const order = rankTabs([
      tab(1, { lastFocusedAt: 500 }),
      tab(2, { active: true, lastFocusedAt: 100 }),
      tab(3, { active: true, windowFocused: true, lastFocusedAt: 50 }),
      tab(4, { lastFocusedAt: 900 }),
    ])
    expect(order).toEqual([3, 2, 4, 1])
  })

  it('leaves out tabs that are not ready, even the focused one', () => {
    expect(rankTabs([tab(1, { active: true, windowFocused: true, ready: false }), tab(2)])).toEqual([2])
    expect(rankTabs([tab(1, { ready: false })])).toEqual([])
  })

  it('breaks ties by tab id so the choice is stable', () => {
    expect(rankTabs([tab(9), tab(3), tab(5)])).toEqual([3, 5, 9])
  })
})
