/// <reference types="chrome" />
// The extension code under test uses the chrome.* types; the root project does not load them otherwise.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { PluginState } from '../../../src/protocol'

import { ADAPTER_GLOBAL_PREFIX } from '../../../src/protocol/constants'
import { TabTracker } from '../../../extension/background/tabTracker'

// The page side is Chrome's: chrome.scripting runs the extension's page functions against a fake
// page per tab, where the adapter file defines a global whose isReady() answers from `page.ready`.
const page = { globals: new Map<number, Record<string, unknown>>(), ready: new Set<number>(), probes: 0 }

async function executeScript(injection: {
  target: { tabId: number }
  files?: string[]
  func?: (...args: never[]) => unknown
  args?: unknown[]
}): Promise<Array<{ result: unknown }>> {
  const tabId = injection.target.tabId
  const globals = page.globals.get(tabId) ?? {}
  page.globals.set(tabId, globals)
  for (const file of injection.files ?? []) {
    const plugin = /^adapters\/(.+)\.js$/.exec(file)?.[1]
    if (plugin)
      globals[ADAPTER_GLOBAL_PREFIX + plugin] = {
        isReady: () => (page.probes++, Promise.resolve(page.ready.has(tabId))),
      }
    else globals.__bridgeRelayInstalled = true
  }
  if (!injection.func) return [{ result: undefined }]
  // The page functions read their globals synchronously, before any await.
  Object.assign(globalThis, globals)
  try {
    return [{ result: await (injection.func as (...a: unknown[]) => unknown)(...(injection.args ?? [])) }]
  } finally {
    for (const k of Object.keys(globals)) delete (globalThis as Record<string, unknown>)[k]
  }
}

const URL = 'http://127.0.0.1:8787/'
const notes: PluginState = {
  name: 'notes',
  displayName: 'Notes',
  version: '1.0.0',
  source: 'local',
  sdkVersion: '0.1.0',
  urlPatterns: ['http://127.0.0.1/*'],
  adapterFile: 'notes.js',
  adapterHash: 'a'.repeat(64),
  permission: 'auto',
  reviewed: true,
  tools: [],
}

type Tab = chrome.tabs.Tab
const tab = (status: 'loading' | 'complete', url = URL): Tab =>
  ({ id: 7, windowId: 1, url, title: 'Notes', active: true, status }) as unknown as Tab

/** Chrome as the tracker sees it: tabs.query and tabs.get answer from `live` (or a held snapshot). */
function fakeChrome(live: { tab: Tab }) {
  let releaseQuery: (() => void) | undefined
  const api = {
    tabs: {
      query: vi.fn(async () => {
        // The snapshot is taken when the query starts and delivered when the test lets it go.
        const snapshot = { ...live.tab }
        await new Promise<void>((resolve) => (releaseQuery = resolve))
        return [snapshot]
      }),
      get: vi.fn(() => Promise.resolve({ ...live.tab })),
      reload: vi.fn(() => Promise.resolve()),
    },
    windows: { getLastFocused: vi.fn(() => Promise.resolve({ id: 1, focused: true })) },
    scripting: { executeScript },
    runtime: { id: 'bridge-test' },
  }
  return { api, releaseQuery: () => releaseQuery?.() }
}

describe('tab tracker', () => {
  beforeEach(() => {
    page.globals.clear()
    page.ready.clear()
    page.probes = 0
  })
  afterEach(() => vi.unstubAllGlobals())

  it('keeps what tab events reported while the start-up query ran, and probes the loaded tab', async () => {
    const live = { tab: tab('loading') }
    const chromeFake = fakeChrome(live)
    vi.stubGlobal('chrome', chromeFake.api)
    const changes: string[] = []
    const tracker = new TabTracker((_plugin, tabs) => changes.push(tabs.state))
    const loading = tracker.load()
    await vi.waitFor(() => expect(chromeFake.api.tabs.query).toHaveBeenCalled())
    // The tab finishes loading before the query's (older) answer arrives.
    live.tab = tab('complete')
    tracker.tabUpdated(live.tab, { status: 'complete' })
    chromeFake.releaseQuery()
    await loading
    page.ready.add(7)
    await tracker.setPlugins([notes])
    expect(tracker.pluginTabs('notes').state).toBe('ready')
    expect(changes.at(-1)).toBe('ready')
  })

  it('asks Chrome again about a tab recorded as loading, so a missed load event does not stick', async () => {
    const live = { tab: tab('loading') }
    vi.stubGlobal('chrome', fakeChrome(live).api)
    const tracker = new TabTracker(() => undefined)
    tracker.upsert(live.tab)
    page.ready.add(7)
    await tracker.setPlugins([notes])
    // Still loading: not probed, not ready.
    expect(tracker.pluginTabs('notes').state).toBe('unavailable')
    expect(page.probes).toBe(0)
    // It completes, but the tracker never hears of it; the next periodic pass finds out.
    live.tab = tab('complete')
    await tracker.sweep(false)
    expect(tracker.pluginTabs('notes').state).toBe('ready')
    expect(page.probes).toBe(1)
  })

  it('does not take a re-read tab that has navigated meanwhile as loaded', async () => {
    const live = { tab: tab('loading') }
    vi.stubGlobal('chrome', fakeChrome(live).api)
    const tracker = new TabTracker(() => undefined)
    tracker.upsert(live.tab)
    page.ready.add(7)
    live.tab = tab('complete', 'http://127.0.0.1:8787/elsewhere')
    await tracker.setPlugins([notes])
    expect(tracker.pluginTabs('notes').state).toBe('unavailable')
    expect(page.probes).toBe(0)
    // The navigation's own event then brings the tab up to date.
    tracker.tabUpdated(live.tab, { url: live.tab.url, status: 'complete' })
    await vi.waitFor(() => expect(tracker.pluginTabs('notes').state).toBe('ready'))
  })

  it('reports a matching tab whose page says not ready as unavailable, and ready once it says so', async () => {
    const live = { tab: tab('complete') }
    vi.stubGlobal('chrome', fakeChrome(live).api)
    const tracker = new TabTracker(() => undefined)
    tracker.upsert(live.tab)
    await tracker.setPlugins([notes])
    expect(tracker.pluginTabs('notes')).toEqual({
      state: 'unavailable',
      tabs: [{ tabId: 7, url: URL, title: 'Notes', ready: false }],
    })
    page.ready.add(7)
    await tracker.sweep(false)
    expect(tracker.pluginTabs('notes').state).toBe('ready')
    tracker.tabRemoved(7)
    expect(tracker.pluginTabs('notes')).toEqual({ state: 'closed', tabs: [] })
  })
})
