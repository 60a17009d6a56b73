/**
 * Every tab in every window, which plugins match it, and whether each plugin's adapter says it is
 * ready there. Owns the adapters' script registrations and readiness probes; reports a plugin's
 * `{ state, tabs }` whenever it changes. Probes run on load, navigation, activation, cookie changes
 * (logins) and periodically while a matching tab is not ready.
 *
 * A tab counts for a plugin only when its document is isolated: the adapter was registered before the
 * document started, so it ran before the page's scripts and its channel is the one the content script
 * took (see adapterScripts.ts). Other matching tabs are listed with `isolated: false` and never run a
 * call until reloaded. A plugin whose tools are all off is reported from the tabs alone: `closed`
 * when none matches, else `unavailable` with every tab not ready and not isolated.
 */
import type { PluginState, PluginTabs, TabInfo, TabStateName } from '../../src/protocol'
import { matchesAny } from '../lib/matchPattern'
import { rankTabs, type TabCandidate } from '../lib/tabChoice'
import { channelStatus, probeReady, TabGoneError } from './adapterHost'
import { AdapterScripts, isActive, REGISTRATION_MARGIN_MS } from './adapterScripts'

interface TrackedTab {
  id: number
  windowId: number
  url: string
  title: string
  active: boolean
  /** False while the document loads: adapters are injected once it completes. */
  complete: boolean
  lastFocusedAt: number
}

const key = (tabId: number, plugin: string): string => `${tabId}:${plugin}`
const SLOW_PROBE_AFTER_MS = 60_000

export class TabTracker {
  private readonly tabs = new Map<number, TrackedTab>()
  private readonly plugins = new Map<string, PluginState>()
  /** `${tabId}:${plugin}` -> ready. Absent: not probed yet (counts as not ready). */
  private readonly ready = new Map<string, boolean>()
  /** `${tabId}:${plugin}` -> whether that document runs the plugin's current adapter over a trusted channel. */
  private readonly isolated = new Map<string, boolean>()
  /** Plugins whose tabs are reloaded on a new build (dev mode `plugin.update`), not just marked. */
  private readonly reloadOnNewBuild = new Set<string>()
  /** The last rebuild of each plugin (`plugin.update`) and the tabs reloaded for it, for the side panel. */
  private readonly rebuilds = new Map<string, { at: number; tabs: Set<number>; waiting: Set<number> }>()
  /** When each not-ready pair was first seen not ready (for the slower probe rhythm). */
  private readonly notReadySince = new Map<string, number>()
  private readonly probing = new Map<string, Promise<void>>()
  /** Probes asked for while one was running: it runs once more when done. */
  private readonly again = new Set<string>()
  private readonly reported = new Map<string, string>()
  private focusedWindowId = -1

  constructor(
    private readonly onChange: (plugin: string, tabs: PluginTabs) => void,
    readonly scripts: AdapterScripts = new AdapterScripts(),
  ) {}

  /**
   * Reads every open tab. Called at worker start; the adapters in pages survive a worker restart.
   * Tab events may arrive while the query runs: what they reported is newer than the query's
   * snapshot, so the snapshot only fills in tabs no event has mentioned (a tab that finished loading
   * meanwhile would otherwise be recorded as still loading, and never probed).
   */
  async load(): Promise<void> {
    const [tabs, win] = await Promise.all([
      chrome.tabs.query({}),
      chrome.windows.getLastFocused().catch(() => undefined),
    ])
    if (this.focusedWindowId === -1) this.focusedWindowId = win?.focused ? (win.id ?? -1) : -1
    for (const t of tabs) if (t.id !== undefined && !this.tabs.has(t.id)) this.upsert(t)
  }

  plugin(name: string): PluginState | undefined {
    return this.plugins.get(name)
  }

  pluginList(): PluginState[] {
    return [...this.plugins.values()]
  }

  /** Replaces the plugin set (sync.full, plugins.changed) and probes what changed. */
  async setPlugins(list: readonly PluginState[]): Promise<void> {
    const names = new Set(list.map((p) => p.name))
    for (const name of [...this.plugins.keys()]) if (!names.has(name)) this.removePlugin(name)
    for (const p of list) this.plugins.set(p.name, p)
    await this.scripts.sync(this.pluginList()).catch(() => undefined)
    await this.refreshAll()
  }

  /**
   * plugin.update: a local plugin was rebuilt; tabs running the old build reload. A new adapter is never
   * put into a running page: it would start after the page's own scripts, so its channel could be one
   * the page forged (see adapterScripts.ts); a reload starts the document with it.
   */
  async updatePlugin(p: PluginState): Promise<void> {
    this.plugins.set(p.name, p)
    this.reloadOnNewBuild.add(p.name)
    // Every matching document started before this build's registration: each reloads for it.
    const open = this.matching(p.name).map((t) => t.id)
    this.rebuilds.set(p.name, { at: Date.now(), tabs: new Set(open), waiting: new Set(open) })
    await this.scripts.sync(this.pluginList()).catch(() => undefined)
    await this.refreshAll()
  }

  /** Matching tabs of a plugin that is on whose document is not isolated: they need a reload. */
  staleTabs(plugin: string): number[] {
    const p = this.plugins.get(plugin)
    if (!p || !isActive(p)) return []
    return this.pluginTabs(plugin)
      .tabs.filter((t) => t.isolated === false)
      .map((t) => t.tabId)
  }

  /**
   * What the side panel says after the plugin's last rebuild: `reloading` while a tab reloaded for it
   * does not run the new build yet, then `updated`. Undefined when it was not rebuilt while the
   * extension ran.
   */
  rebuildNotice(plugin: string): { state: 'reloading' | 'updated'; at: number; tabs: number } | undefined {
    const rebuild = this.rebuilds.get(plugin)
    if (!rebuild) return undefined
    for (const tabId of rebuild.tabs)
      if (!this.tabMatches(tabId, plugin)) {
        rebuild.tabs.delete(tabId)
        rebuild.waiting.delete(tabId)
      }
    return {
      state: rebuild.waiting.size > 0 ? 'reloading' : 'updated',
      at: rebuild.at,
      tabs: rebuild.tabs.size,
    }
  }

  /** Whether the tab's document has the plugin's trusted channel (events from it are accepted). */
  isIsolated(tabId: number, plugin: string): boolean {
    return this.isolated.get(key(tabId, plugin)) === true && this.tabMatches(tabId, plugin)
  }

  removePlugin(name: string): void {
    this.plugins.delete(name)
    this.reported.delete(name)
    for (const k of [...this.ready.keys()]) if (k.endsWith(`:${name}`)) this.ready.delete(k)
    for (const k of [...this.notReadySince.keys()]) if (k.endsWith(`:${name}`)) this.notReadySince.delete(k)
    for (const k of [...this.isolated.keys()]) if (k.endsWith(`:${name}`)) this.isolated.delete(k)
    this.reloadOnNewBuild.delete(name)
    this.rebuilds.delete(name)
    void this.scripts.sync(this.pluginList()).catch(() => undefined)
  }

  /** State of one plugin's tabs as reported to the daemon, ready tabs ranked as a call would pick them. */
  pluginTabs(name: string): PluginTabs {
    const tabs: TabInfo[] = this.matching(name).map((t) => ({
      tabId: t.id,
      url: t.url,
      title: t.title,
      ready: this.readyIn(t.id, name),
      isolated: this.isolatedIn(t.id, name),
    }))
    const order = rankTabs(this.candidates(name))
    for (const info of tabs) {
      const rank = order.indexOf(info.tabId)
      if (rank !== -1) info.rank = rank
    }
    const state: TabStateName =
      tabs.length === 0 ? 'closed' : tabs.some((t) => t.ready) ? 'ready' : 'unavailable'
    return { state, tabs }
  }

  /** The tabs a plugin's URL patterns match, by tab id. */
  private matching(name: string): TrackedTab[] {
    const p = this.plugins.get(name)
    if (!p) return []
    return [...this.tabs.values()].filter((t) => matchesAny(p.urlPatterns, t.url)).sort((a, b) => a.id - b.id)
  }

  /** Everything for `tab.syncAll`; marks it as reported so only later changes are sent. */
  snapshot(): Record<string, PluginTabs> {
    const out: Record<string, PluginTabs> = {}
    for (const name of this.plugins.keys()) {
      out[name] = this.pluginTabs(name)
      this.reported.set(name, JSON.stringify(out[name]))
    }
    return out
  }

  /** Forget what was reported (a new connection starts with tab.syncAll). */
  resetReported(): void {
    this.reported.clear()
  }

  /** The plugin is on and the tab's document runs its current adapter over a trusted channel. */
  private isolatedIn(tabId: number, plugin: string): boolean {
    const p = this.plugins.get(plugin)
    return p !== undefined && isActive(p) && this.isolated.get(key(tabId, plugin)) === true
  }

  /** Ready counts only in an isolated document. */
  private readyIn(tabId: number, plugin: string): boolean {
    return this.isolatedIn(tabId, plugin) && this.ready.get(key(tabId, plugin)) === true
  }

  candidates(plugin: string): TabCandidate[] {
    return this.matching(plugin).map((t) => ({
      tabId: t.id,
      ready: this.readyIn(t.id, plugin),
      active: t.active,
      windowFocused: t.windowId === this.focusedWindowId,
      lastFocusedAt: t.lastFocusedAt,
    }))
  }

  hasTab(tabId: number): boolean {
    return this.tabs.has(tabId)
  }

  /** Whether the tab's current URL is one the plugin applies to. */
  tabMatches(tabId: number, plugin: string): boolean {
    const t = this.tabs.get(tabId)
    const p = this.plugins.get(plugin)
    return !!t && !!p && matchesAny(p.urlPatterns, t.url)
  }

  // ---- tab events -------------------------------------------------------------------------------

  tabUpdated(tab: chrome.tabs.Tab, change: { status?: string; url?: string }): void {
    if (tab.id === undefined) return
    const before = this.tabs.get(tab.id)
    this.upsert(tab)
    if (change.status === 'loading' && (change.url !== undefined || before?.complete))
      this.forgetDocument(tab.id)
    if (change.url !== undefined || change.status === 'complete') void this.refreshTab(tab.id)
    else this.emitChanges()
  }

  tabRemoved(tabId: number): void {
    this.tabs.delete(tabId)
    this.forgetDocument(tabId)
    this.emitChanges()
  }

  tabActivated(tabId: number, windowId: number): void {
    for (const t of this.tabs.values()) if (t.windowId === windowId) t.active = t.id === tabId
    const t = this.tabs.get(tabId)
    if (t) t.lastFocusedAt = Date.now()
    void this.refreshTab(tabId)
  }

  /** Re-reads which tabs are active and which window has focus (events may still be in flight). */
  async refreshFocus(): Promise<void> {
    const [active, win] = await Promise.all([
      chrome.tabs.query({ active: true }),
      chrome.windows.getLastFocused().catch(() => undefined),
    ])
    this.focusedWindowId = win?.focused ? (win.id ?? -1) : -1
    const ids = new Set(active.map((t) => t.id))
    for (const t of this.tabs.values()) t.active = ids.has(t.id)
    this.emitChanges()
  }

  windowFocused(windowId: number): void {
    this.focusedWindowId = windowId
    for (const t of this.tabs.values()) if (t.windowId === windowId && t.active) t.lastFocusedAt = Date.now()
    // The ranking changed: the daemon picks the tab it shows in approvals by it.
    this.emitChanges()
  }

  upsert(tab: chrome.tabs.Tab): void {
    if (tab.id === undefined || tab.id < 0) return
    const prev = this.tabs.get(tab.id)
    this.tabs.set(tab.id, {
      id: tab.id,
      windowId: tab.windowId,
      url: tab.url ?? tab.pendingUrl ?? prev?.url ?? '',
      title: tab.title ?? prev?.title ?? '',
      active: tab.active,
      complete: tab.status === 'complete',
      lastFocusedAt:
        prev?.lastFocusedAt ?? (tab.active && tab.windowId === this.focusedWindowId ? Date.now() : 0),
    })
  }

  /** Re-probe the tabs of one host (a cookie changed there: maybe a login or logout). */
  refreshHost(domain: string): void {
    const d = domain.replace(/^\./, '').toLowerCase()
    for (const t of this.tabs.values()) {
      let host = ''
      try {
        host = new URL(t.url).hostname
      } catch {
        continue
      }
      if (host === d || host.endsWith(`.${d}`)) void this.refreshTab(t.id)
    }
  }

  /**
   * Periodic pass (every 2 s): matching tabs that are not ready get probed again; `all` includes
   * ready ones. A tab not ready for over a minute (signed out, left open) is probed every 5th pass
   * only; events (load, activation, cookies) still probe it at once.
   */
  async sweep(all: boolean, pass = 0): Promise<void> {
    await this.scripts.retryFailed().catch(() => undefined)
    const jobs: Promise<void>[] = []
    const now = Date.now()
    for (const t of this.tabs.values())
      for (const p of this.plugins.values()) {
        if (!matchesAny(p.urlPatterns, t.url)) continue
        const k = key(t.id, p.name)
        const since = this.notReadySince.get(k)
        const due =
          all ||
          (this.ready.get(k) !== true &&
            (since === undefined || now - since < SLOW_PROBE_AFTER_MS || pass % 5 === 0))
        if (due) jobs.push(this.probe(t.id, p))
      }
    await Promise.all(jobs)
    this.emitChanges()
  }

  async refreshAll(): Promise<void> {
    await Promise.all([...this.tabs.keys()].map((id) => this.refreshTab(id, false)))
    this.emitChanges()
  }

  async refreshTab(tabId: number, emit = true): Promise<void> {
    const t = this.tabs.get(tabId)
    if (!t) return
    const jobs: Promise<void>[] = []
    for (const p of this.plugins.values()) {
      if (matchesAny(p.urlPatterns, t.url)) jobs.push(this.probe(tabId, p))
      else {
        this.ready.delete(key(tabId, p.name))
      }
    }
    await Promise.all(jobs)
    if (emit) this.emitChanges()
  }

  /** Records a readiness learned elsewhere (the dispatcher found a tab not ready). */
  setReady(tabId: number, plugin: string, ready: boolean): void {
    const k = key(tabId, plugin)
    this.ready.set(k, ready)
    if (ready) this.notReadySince.delete(k)
    else if (!this.notReadySince.has(k)) this.notReadySince.set(k, Date.now())
    this.emitChanges()
  }

  /** Probes one (tab, plugin) pair; concurrent asks share one probe and a late ask re-runs it once. */
  probe(tabId: number, p: PluginState): Promise<void> {
    const k = key(tabId, p.name)
    const running = this.probing.get(k)
    if (running) {
      this.again.add(k)
      return running
    }
    const job = (async () => {
      do {
        this.again.delete(k)
        const current = this.plugins.get(p.name)
        if (!current) return
        await this.probeOnce(tabId, current)
      } while (this.again.has(k))
    })().finally(() => this.probing.delete(k))
    this.probing.set(k, job)
    return job
  }

  private async probeOnce(tabId: number, p: PluginState): Promise<void> {
    let t = this.tabs.get(tabId)
    // A tab recorded as loading is asked again: if its 'complete' event was missed it would stay
    // unprobed for good.
    if (t && !t.complete) t = await this.reread(tabId)
    if (!t || !t.complete) {
      this.ready.set(key(tabId, p.name), false)
      return
    }
    const k = key(tabId, p.name)
    let ready = false
    let isolated = false
    // A plugin that is off runs nothing: its tabs are not even asked.
    if (isActive(p))
      try {
        const status = await channelStatus(tabId)
        const opened = status?.channels.some((c) => c.plugin === p.name) === true
        isolated = status !== null && opened && this.scripts.covers(p.name, status.timeOrigin)
        // A document older than the plugin's new build (dev mode), or one the user loaded while the
        // adapter was being registered (a reload right after turning the plugin on), is reloaded once
        // to get it. Documents open before the plugin was turned on are left for the user to reload.
        if (
          !isolated &&
          status !== null &&
          (this.reloadOnNewBuild.has(p.name) ||
            this.scripts.startedWhileRegistering(p.name, status.timeOrigin))
        )
          this.reloadOnce(tabId, p.name, status.timeOrigin)
        ready = isolated && (await probeReady(tabId, p.name)) === true
      } catch (err) {
        // Pages the extension may not script (the store, error pages) or a tab closing mid-probe.
        if (err instanceof TabGoneError) this.forgetDocument(tabId)
        ready = false
      }
    if (this.tabs.get(tabId)?.url !== t.url) return
    // A document covered by a registration made after the rebuild runs the new build.
    const rebuild = this.rebuilds.get(p.name)
    if (isolated && rebuild && (this.scripts.since(p.name) ?? 0) >= rebuild.at) rebuild.waiting.delete(tabId)
    this.isolated.set(k, isolated)
    this.ready.set(k, ready)
    if (ready) this.notReadySince.delete(k)
    else if (!this.notReadySince.has(k)) this.notReadySince.set(k, Date.now())
  }

  /**
   * The side panel's "Reload tab" on a stale tab: once the plugin's adapter is registered (and the
   * registration margin has passed), so the new document starts with it. False when the tab is not
   * (or no longer) one that needs it.
   */
  async reloadStale(tabId: number, plugin: string): Promise<boolean> {
    await this.scripts.settled()
    const since = this.scripts.since(plugin)
    if (since === undefined || !this.staleTabs(plugin).includes(tabId)) return false
    const wait = since + 2 * REGISTRATION_MARGIN_MS - Date.now()
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
    await chrome.tabs.reload(tabId)
    return true
  }

  /** Documents already sent a reload, by tab and time origin: each is reloaded at most once. */
  private readonly reloading = new Set<string>()

  private reloadOnce(tabId: number, plugin: string, timeOrigin: number): void {
    const since = this.scripts.since(plugin)
    const document = `${tabId}:${timeOrigin}`
    if (since === undefined || this.scripts.covers(plugin, timeOrigin) || this.reloading.has(document)) return
    if (this.reloading.size >= 500) this.reloading.clear()
    this.reloading.add(document)
    const rebuild = this.rebuilds.get(plugin)
    rebuild?.tabs.add(tabId)
    rebuild?.waiting.add(tabId)
    // Not sooner than the margin after the registration, or the new document is not covered.
    setTimeout(
      () => void chrome.tabs.reload(tabId).catch(() => undefined),
      Math.max(0, since + 2 * REGISTRATION_MARGIN_MS - Date.now()),
    )
  }

  /** The tab as Chrome sees it now (undefined when it is gone). */
  private async reread(tabId: number): Promise<TrackedTab | undefined> {
    const tab = await chrome.tabs.get(tabId).catch(() => undefined)
    if (!tab) return this.tabs.get(tabId)
    const before = this.tabs.get(tabId)
    if (!before) return undefined
    if (tab.url !== undefined && tab.url !== before.url) return before
    this.upsert(tab)
    return this.tabs.get(tabId)
  }

  private forgetDocument(tabId: number): void {
    for (const k of [...this.ready.keys()]) if (k.startsWith(`${tabId}:`)) this.ready.delete(k)
    for (const k of [...this.notReadySince.keys()])
      if (k.startsWith(`${tabId}:`)) this.notReadySince.delete(k)
    for (const k of [...this.isolated.keys()]) if (k.startsWith(`${tabId}:`)) this.isolated.delete(k)
  }

  emitChanges(): void {
    for (const name of this.plugins.keys()) {
      const now = this.pluginTabs(name)
      const text = JSON.stringify(now)
      if (this.reported.get(name) === text) continue
      this.reported.set(name, text)
      this.onChange(name, now)
    }
  }
}
