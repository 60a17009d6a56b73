/// <reference types="chrome" />
// The extension code under test uses the chrome.* types; the root project does not load them otherwise.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { PluginState } from '../../../src/protocol'

import { TabTracker } from '../../../extension/background/tabTracker'

// The page side is Chrome's: the content script answers chrome.tabs.sendMessage for the channels its
// document has. Here each tab is a fake document: `page.ready` says whether its adapter's isReady()
// answers true, `page.startedAt` when its navigation started (default: after every registration).
const page = {
  ready: new Set<number>(),
  startedAt: new Map<number, number>(),
  probes: 0,
  messages: 0,
}
const registered = new Map<string, chrome.scripting.RegisteredContentScript>()

function sendMessage(tabId: number, message: { channel: { op: string; plugin?: string } }): Promise<unknown> {
  page.messages++
  const request = message.channel
  const plugins = [...registered.values()].map((r) => r.id.slice('adapter:'.length))
  if (request.op === 'status')
    return Promise.resolve({
      timeOrigin: page.startedAt.get(tabId) ?? Date.now() + 60_000,
      channels: plugins.map((plugin) => ({ plugin, version: '1.0.0' })),
      refused: 0,
    })
  if (request.plugin === undefined || !plugins.includes(request.plugin))
    return Promise.resolve({ missing: true })
  page.probes++
  return Promise.resolve({ ready: page.ready.has(tabId) })
}

const scripting = {
  getRegisteredContentScripts: () => Promise.resolve([...registered.values()]),
  registerContentScripts: (scripts: chrome.scripting.RegisteredContentScript[]) => {
    for (const s of scripts) registered.set(s.id, s)
    return Promise.resolve()
  },
  unregisterContentScripts: ({ ids }: { ids: string[] }) => {
    for (const id of ids) registered.delete(id)
    return Promise.resolve()
  },
}
const storage = { local: { get: () => Promise.resolve({}), set: () => Promise.resolve() } }

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
  tools: [{ name: 'list', displayName: 'List', description: 'd', permission: 'auto' }],
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
      sendMessage,
    },
    windows: { getLastFocused: vi.fn(() => Promise.resolve({ id: 1, focused: true })) },
    scripting,
    storage,
    runtime: { id: 'bridge-test' },
  }
  return { api, releaseQuery: () => releaseQuery?.() }
}

describe('tab tracker', () => {
  beforeEach(() => {
    page.ready.clear()
    page.startedAt.clear()
    page.probes = 0
    page.messages = 0
    registered.clear()
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
      tabs: [{ tabId: 7, url: URL, title: 'Notes', ready: false, isolated: true }],
    })
    page.ready.add(7)
    await tracker.sweep(false)
    expect(tracker.pluginTabs('notes').state).toBe('ready')
    tracker.tabRemoved(7)
    expect(tracker.pluginTabs('notes')).toEqual({ state: 'closed', tabs: [] })
  })

  it('registers a MAIN-world document_start script for a plugin that is on, and none for one that is off', async () => {
    vi.stubGlobal('chrome', fakeChrome({ tab: tab('complete') }).api)
    const tracker = new TabTracker(() => undefined)
    await tracker.setPlugins([notes])
    expect([...registered.values()]).toEqual([
      expect.objectContaining({
        id: 'adapter:notes',
        js: ['adapters/notes.js'],
        matches: ['http://127.0.0.1/*'],
        runAt: 'document_start',
        world: 'MAIN',
        persistAcrossSessions: true,
      }),
    ])
    const off = { ...notes, tools: notes.tools.map((t) => ({ ...t, permission: 'off' as const })) }
    await tracker.setPlugins([off])
    expect(registered.size).toBe(0)
  })

  it('reports an off plugin from the tabs alone, without asking the page anything', async () => {
    const live = { tab: tab('complete') }
    vi.stubGlobal('chrome', fakeChrome(live).api)
    const tracker = new TabTracker(() => undefined)
    tracker.upsert(live.tab)
    page.ready.add(7)
    await tracker.setPlugins([
      { ...notes, tools: notes.tools.map((t) => ({ ...t, permission: 'off' as const })) },
    ])
    await tracker.sweep(true)
    expect(tracker.pluginTabs('notes')).toEqual({
      state: 'unavailable',
      tabs: [{ tabId: 7, url: URL, title: 'Notes', ready: false, isolated: false }],
    })
    expect(page.messages).toBe(0)
    expect(tracker.staleTabs('notes')).toEqual([])
  })

  it('keeps a document that started before the plugin was registered not isolated and not ready, even if it answers', async () => {
    const live = { tab: tab('complete') }
    const { api } = fakeChrome(live)
    vi.stubGlobal('chrome', api)
    const tracker = new TabTracker(() => undefined)
    tracker.upsert(live.tab)
    page.ready.add(7)
    page.startedAt.set(7, Date.now() - 1_000)
    await tracker.setPlugins([notes])
    expect(tracker.pluginTabs('notes')).toEqual({
      state: 'unavailable',
      tabs: [{ tabId: 7, url: URL, title: 'Notes', ready: false, isolated: false }],
    })
    expect(tracker.isIsolated(7, 'notes')).toBe(false)
    expect(tracker.staleTabs('notes')).toEqual([7])
    expect(page.probes).toBe(0)
    // Open before the plugin was turned on: the user reloads it, the extension does not.
    await new Promise((resolve) => setTimeout(resolve, 150))
    expect(api.tabs.reload).not.toHaveBeenCalled()
    // The reload starts a new document after the registration.
    page.startedAt.set(7, Date.now() + 1_000)
    tracker.tabUpdated(live.tab, { status: 'complete' })
    await vi.waitFor(() => expect(tracker.pluginTabs('notes').state).toBe('ready'))
    expect(tracker.isIsolated(7, 'notes')).toBe(true)
  })

  it('reloads, once, a document the user loaded while the adapter was being registered', async () => {
    const live = { tab: tab('complete') }
    const { api } = fakeChrome(live)
    vi.stubGlobal('chrome', api)
    const tracker = new TabTracker(() => undefined)
    tracker.upsert(live.tab)
    page.ready.add(7)
    // Started after the tracker learned the plugin must run, before Chrome confirmed the registration
    // (within its margin): the user's reload right after turning the plugin on.
    page.startedAt.set(7, Date.now() + 20)
    await tracker.setPlugins([notes])
    expect(tracker.isIsolated(7, 'notes')).toBe(false)
    await vi.waitFor(() => expect(api.tabs.reload).toHaveBeenCalledTimes(1))
    expect(api.tabs.reload).toHaveBeenCalledWith(7)
    // Probed again before its reload lands, the same document is not reloaded twice.
    tracker.tabUpdated(live.tab, { status: 'complete' })
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(api.tabs.reload).toHaveBeenCalledTimes(1)
  })
})
