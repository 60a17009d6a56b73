import { describe, expect, it } from 'vitest'
import { chooseTab } from '../../../machines/tabChoice'
import type { TabInfo } from '../../../src/protocol'

const tab = (tabId: number, over: Partial<TabInfo> = {}): TabInfo => ({
  tabId,
  url: `http://127.0.0.1/${tabId}`,
  title: `tab ${tabId}`,
  ready: true,
  ...over,
})

describe('chooseTab', () => {
  it('takes the ready tab the extension ranks first', () => {
    expect(chooseTab([tab(1, { rank: 1 }), tab(2, { rank: 0 }), tab(3, { ready: false })])?.tabId).toBe(2)
  })

  it('never takes a tab that is not ready, and finds none when no tab is ready', () => {
    expect(chooseTab([tab(1, { ready: false, rank: 0 }), tab(2, { rank: 1 })])?.tabId).toBe(2)
    expect(chooseTab([tab(1, { ready: false })])).toBeUndefined()
    expect(chooseTab([])).toBeUndefined()
  })

  it('falls back to the first ready tab when the report has no ranks', () => {
    expect(chooseTab([tab(4, { ready: false }), tab(5), tab(6)])?.tabId).toBe(5)
  })
})
