import { describe, expect, it } from 'vitest'
import { listedItems, listedOrigins, readableItems } from '../../../src/guard/listedPages'

describe('labels of results that list pages', () => {
  it('labels each listed tab, window tab and download with its own URL origin', () => {
    const windows = {
      windows: [
        {
          id: 1,
          tabs: [
            { tabId: 1, url: 'https://mail.example.com/inbox', title: 'Inbox - jane@corp.example' },
            { tabId: 2, url: 'about:blank', title: '' },
          ],
        },
        { id: 2, tabs: [{ tabId: 3, url: 'https://news.example.org/a?b=c', title: 'News' }] },
      ],
    }
    expect(listedItems(windows).map((i) => [i.origin, i.item.title])).toEqual([
      ['https://mail.example.com', 'Inbox - jane@corp.example'],
      ['https://news.example.org', 'News'],
    ])
    expect(listedOrigins(windows)).toEqual(['https://mail.example.com', 'https://news.example.org'])
    const downloads = {
      downloads: [{ id: 4, url: 'https://files.example.net/r.pdf', filename: '/tmp/r.pdf' }],
    }
    expect(listedOrigins(downloads)).toEqual(['https://files.example.net'])
  })

  it('names no origin for a result that lists no web page', () => {
    expect(listedOrigins({ tabs: [{ tabId: 1, url: 'chrome://newtab/', title: 'New tab' }] })).toBeUndefined()
    expect(listedOrigins({ groups: [{ id: 1, title: 'Work' }] })).toBeUndefined()
    expect(listedOrigins(null)).toBeUndefined()
  })
})

describe('what of a list of pages a client with fixed read origins may get', () => {
  const A = 'https://mail.example.com'
  const B = 'https://bank.example.org'
  it('keeps the items of readable origins and those of no origin, in every list, and leaves the rest out', () => {
    const windows = {
      windows: [
        {
          id: 1,
          tabs: [
            { tabId: 1, url: `${A}/inbox`, title: 'Inbox' },
            { tabId: 2, url: `${B}/accounts`, title: 'Balance 4111 1111 1111 1234' },
            { tabId: 3, url: 'about:blank', title: '' },
          ],
        },
        { id: 2, tabs: [{ tabId: 4, url: `${B}/`, title: 'Bank' }] },
      ],
    }
    expect(readableItems(windows, [A])).toEqual({
      windows: [
        {
          id: 1,
          tabs: [
            { tabId: 1, url: `${A}/inbox`, title: 'Inbox' },
            { tabId: 3, url: 'about:blank', title: '' },
          ],
        },
        { id: 2, tabs: [] },
      ],
    })
    // The list itself is not changed.
    expect(windows.windows[0]!.tabs).toHaveLength(3)
  })

  it('keeps nothing of a result that is one page of another origin', () => {
    expect(readableItems({ tabId: 5, url: `${B}/`, title: 'Bank' }, [A])).toBeUndefined()
    expect(readableItems({ tab: { tabId: 5, url: `${B}/` } }, [A])).toBeUndefined()
    expect(readableItems({ tab: { tabId: 5, url: `${A}/` } }, [A])).toEqual({
      tab: { tabId: 5, url: `${A}/` },
    })
  })
})
