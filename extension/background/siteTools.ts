/**
 * Sites' own tools (WebMCP) in the service worker. A site (an origin) is looked at only once the user
 * turned it on: then, and only then, siteContent.js is registered for its pages (every frame of that
 * origin) and injected into its frames already open. A site that is off gets nothing of this in its
 * pages, and none of its tools reach the daemon. What the frames report is kept per tab and frame,
 * under the origin Chrome names for the sender (never what a page says), and sent to the daemon in
 * full (`sites.report`) after every change: registering, unregistering, navigating, closing.
 * `tool.dispatch` for a site runs the tool in a frame of that origin that declares it, in a tab the
 * calling agent may act in (not in another agent's tab group).
 */
import {
  JsonRpcErrorCode,
  SITE_TOOL_LIMITS,
  TOOL_MAX_DURATION_MS,
  type DeclaredSiteTool,
  type SiteState,
  type SitesReport,
  type SiteTab,
} from '../../src/protocol'
import { otherOwner } from '../builtins/agentGroups'
import { recordExtensionLog } from '../builtins'
import { rankTabs } from '../lib/tabChoice'
import type { SiteToolsCommand, SiteToolsReport, SiteToolsRunReply } from '../shared/siteToolTypes'
import type { DispatchParams } from './dispatcher'
import { RpcError } from './rpc'
import { originOf, updateSiteScripts } from './siteScripts'

const REPORT_DELAY_MS = 100

interface FrameTools {
  origin: string
  tools: DeclaredSiteTool[]
  truncated: boolean
  /** The document that reported (Chrome's id): a frame's next document starts empty. */
  documentId: string | undefined
  reportedAt: number
}

/** True for a `tool.dispatch` plugin field that names a site (an origin), not a plugin. */
export const isSiteKey = (plugin: string): boolean => plugin.includes('://')

const toolError = (message: string, code: string, category: string): RpcError =>
  new RpcError(JsonRpcErrorCode.toolError, message, { code, category })

export class SiteTools {
  private sites: SiteState[] = []
  private enabled = new Set<string>()
  private readonly frames = new Map<number, Map<number, FrameTools>>()
  private reportTimer: ReturnType<typeof setTimeout> | undefined
  private registration: Promise<void> = Promise.resolve()
  private sending: Promise<void> = Promise.resolve()
  /** The last report sequence per tab, frame and document. */
  private readonly lastSeq = new Map<string, number>()
  /** The http(s) origin of the active tab of the focused window: the panel offers its switch. */
  activeOrigin: string | undefined

  constructor(
    /** Sends `sites.report` to the daemon; false when not connected (the next sync sends it). */
    private readonly send: (report: SitesReport) => boolean,
    private readonly changed: () => void,
  ) {
    chrome.tabs.onRemoved.addListener((tabId) => this.dropFrames(tabId))
    chrome.webNavigation.onCommitted.addListener(({ tabId, frameId, documentId, timeStamp }) =>
      this.committed(tabId, frameId, documentId, timeStamp),
    )
    const refreshActive = () => void this.refreshActive()
    chrome.tabs.onActivated.addListener(refreshActive)
    chrome.tabs.onUpdated.addListener(
      (_id, info, tab) => tab.active && info.url !== undefined && refreshActive(),
    )
    chrome.windows.onFocusChanged.addListener(refreshActive)
    refreshActive()
  }

  private async refreshActive(): Promise<void> {
    const [tab] = await chrome.tabs.query({ active: true, lastFocusedWindow: true }).catch(() => [])
    const origin = originOf(tab?.url)
    if (origin === this.activeOrigin) return
    this.activeOrigin = origin
    this.changed()
  }

  /** The daemon's view of the sites (sync.full, sites.changed): which to watch, each tool's permission. */
  setSites(sites: SiteState[]): void {
    this.sites = sites
    const next = new Set(sites.filter((s) => s.enabled).map((s) => s.origin))
    const added = [...next].filter((o) => !this.enabled.has(o))
    const removed = [...this.enabled].filter((o) => !next.has(o))
    this.enabled = next
    if (added.length || removed.length) {
      this.registration = this.registration
        .then(() =>
          updateSiteScripts(this.enabled, added, removed, (tabId, frameId) =>
            this.frames.get(tabId)?.delete(frameId),
          ),
        )
        .then(() => {
          if (removed.length > 0) this.scheduleReport()
        })
        .catch((err: unknown) => {
          recordExtensionLog('warning', `site tools: ${err instanceof Error ? err.message : String(err)}`)
        })
    }
    this.changed()
  }

  siteStates(): SiteState[] {
    return this.sites
  }

  /** A frame's report from siteContent.js; `origin` is Chrome's `sender.origin`. */
  frameReport(
    tabId: number,
    frameId: number,
    origin: string | undefined,
    documentId: string | undefined,
    report: SiteToolsReport,
  ): void {
    // A frame of a site that is off (turned off a moment ago, or a stray copy) is not heard.
    if (origin === undefined || !this.enabled.has(origin)) return
    // Messages of one frame may overtake each other: only a newer report of its document counts.
    const key = `${tabId}:${frameId}:${documentId ?? ''}`
    const seq = typeof report.seq === 'number' ? report.seq : 0
    if ((this.lastSeq.get(key) ?? -1) >= seq) return
    this.lastSeq.set(key, seq)
    const tools = Array.isArray(report.tools) ? report.tools.slice(0, SITE_TOOL_LIMITS.toolsPerFrame) : []
    const byFrame = this.frames.get(tabId) ?? new Map<number, FrameTools>()
    this.frames.set(tabId, byFrame)
    if (tools.length === 0 && !report.truncated) byFrame.delete(frameId)
    else
      byFrame.set(frameId, {
        origin,
        tools,
        truncated: report.truncated === true,
        documentId,
        reportedAt: Date.now(),
      })
    this.scheduleReport()
  }

  /** The full report for the daemon (also sent on every new connection). */
  async report(): Promise<SitesReport> {
    const tabs: SiteTab[] = []
    // The report must stay far below the socket's 10 MB: frames past the budget are left out.
    let chars = 0
    const fits = (f: FrameTools): boolean => {
      chars += f.tools.reduce((n, t) => n + t.description.length + (t.inputSchema?.length ?? 0) + 300, 0)
      return chars <= SITE_TOOL_LIMITS.charsPerReport
    }
    for (const [tabId, byFrame] of this.frames) {
      if (tabs.length >= SITE_TOOL_LIMITS.tabsPerReport) break
      const frames = [...byFrame]
        .filter(([, f]) => this.enabled.has(f.origin))
        .slice(0, SITE_TOOL_LIMITS.framesPerTab)
        .filter(([, f]) => fits(f))
        .map(([frameId, f]) => ({
          frameId,
          origin: f.origin,
          tools: f.tools,
          ...(f.truncated ? { truncated: true } : {}),
        }))
      if (frames.length === 0) continue
      const tab = await chrome.tabs.get(tabId).catch(() => undefined)
      if (!tab) continue
      tabs.push({
        tabId,
        url: (tab.url ?? '').slice(0, 2048),
        title: (tab.title ?? '').slice(0, 512),
        frames,
      })
    }
    return { tabs }
  }

  /**
   * Sends the full report. One at a time: building one awaits Chrome, and an older report finishing
   * after a newer one would bring back tools that are gone (or hide new ones).
   */
  sendReport(): void {
    this.sending = this.sending
      .then(async () => {
        this.send(await this.report())
      })
      .catch(() => undefined)
  }

  /** `tool.dispatch` for a site: runs `params.tool` (the declared name) of site `params.plugin`. */
  async dispatch(params: DispatchParams): Promise<{ output: unknown }> {
    const origin = params.plugin
    const state = this.sites.find((s) => s.origin === origin)?.tools.find((t) => t.name === params.tool)
    // Defence in depth: the daemon never sends an off tool, and the extension does not run one either.
    if (!this.enabled.has(origin) || !state || state.permission === 'off')
      throw toolError(
        `the extension refuses the tool ${params.tool.slice(0, 128)} of ${origin}: it is off. Turn it on in the bridge side panel first.`,
        'permission_off',
        'permission',
      )
    // The daemon names the declaration it checked; without one there is nothing to hold the page to.
    const declared = params.declared
    if (declared === undefined)
      throw toolError(
        `the extension refuses the tool ${params.tool.slice(0, 128)} of ${origin}: the call names no declaration it was checked with`,
        'declaration_changed',
        'permission',
      )
    const ctx = {
      dispatchId: params.dispatchId,
      ...(params.client !== undefined ? { client: params.client } : {}),
      ...(params.session !== undefined ? { session: params.session } : {}),
      progress: () => undefined,
      log: () => undefined,
    }
    const declaring = [...this.frames].flatMap(([tabId, byFrame]) =>
      [...byFrame].some(([, f]) => f.origin === origin && f.tools.some((t) => t.name === params.tool))
        ? [tabId]
        : [],
    )
    const candidates = params.tabId !== undefined ? declaring.filter((id) => id === params.tabId) : declaring
    if (candidates.length === 0)
      throw new RpcError(
        JsonRpcErrorCode.tabClosed,
        params.tabId !== undefined
          ? `tab ${params.tabId} no longer declares this tool: the call did not run (it runs only in the tab it was approved for)`
          : `no open tab of ${origin} declares this tool now: open the site first`,
      )
    const tabs = (
      await Promise.all(candidates.map((id) => chrome.tabs.get(id).catch(() => undefined)))
    ).filter((t): t is chrome.tabs.Tab => t?.id !== undefined)
    const focused = await chrome.windows.getLastFocused().catch(() => undefined)
    const order = rankTabs(
      tabs.map((t) => ({
        tabId: t.id!,
        ready: true,
        active: t.active,
        windowFocused: t.windowId === focused?.id,
        lastFocusedAt: t.lastAccessed ?? 0,
      })),
    )
    let refusedBy: string | undefined
    for (const tabId of order) {
      const tab = tabs.find((t) => t.id === tabId)!
      // Like every tab action: never in another agent's tab group.
      const owner = await otherOwner(tab, ctx)
      if (owner !== undefined) {
        refusedBy = owner
        continue
      }
      const frameId = [...(this.frames.get(tabId) ?? [])].find(
        ([, f]) => f.origin === origin && f.tools.some((t) => t.name === params.tool),
      )?.[0]
      if (frameId === undefined) continue
      return { output: await this.run(tabId, frameId, params.tool, params.input, declared) }
    }
    throw new RpcError(
      JsonRpcErrorCode.tabUnavailable,
      refusedBy !== undefined
        ? `the only tabs of ${origin} that declare this tool are in the tab group of ${JSON.stringify(refusedBy)}, another agent`
        : `no tab of ${origin} can run this tool now`,
    )
  }

  private async run(
    tabId: number,
    frameId: number,
    name: string,
    input: unknown,
    declared: string,
  ): Promise<{ text: string; truncated?: boolean }> {
    const command: SiteToolsCommand = {
      siteTools: 'run',
      name,
      declared,
      input:
        typeof input === 'object' && input !== null && !Array.isArray(input)
          ? (input as Record<string, unknown>)
          : {},
    }
    let timer: ReturnType<typeof setTimeout> | undefined
    // The daemon's timeout answers the agent; this only lets go of a page that never settles.
    const giveUp = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), TOOL_MAX_DURATION_MS + 10_000)
    })
    let reply: SiteToolsRunReply | undefined
    try {
      reply = await Promise.race([
        chrome.tabs.sendMessage<SiteToolsCommand, SiteToolsRunReply | undefined>(tabId, command, { frameId }),
        giveUp,
      ])
    } catch {
      reply = undefined
    } finally {
      clearTimeout(timer)
    }
    if (!reply || (!reply.ok && reply.gone === true))
      throw new RpcError(
        JsonRpcErrorCode.tabClosed,
        'the page closed, navigated away or dropped the tool while it ran',
      )
    if (!reply.ok && reply.changed === true)
      throw toolError(
        'the site changed this tool (its description, input or hints) since the call was checked and approved: it did not run; call it again to be asked about what the site declares now',
        'declaration_changed',
        'permission',
      )
    if (!reply.ok) throw toolError(String(reply.message).slice(0, 2000), 'tool_error', 'site')
    return { text: String(reply.text), ...(reply.truncated ? { truncated: true } : {}) }
  }

  private scheduleReport(): void {
    clearTimeout(this.reportTimer)
    this.reportTimer = setTimeout(() => this.sendReport(), REPORT_DELAY_MS)
  }

  private dropFrames(tabId: number): void {
    for (const key of this.lastSeq.keys()) if (key.startsWith(`${tabId}:`)) this.lastSeq.delete(key)
    if (this.frames.delete(tabId)) this.scheduleReport()
  }

  /**
   * A frame committed a document. What another document of that frame reported is gone; a new top
   * document takes the frames that reported before it with it. A document restored from the
   * back/forward cache keeps its id (and reports again on `pageshow`), whichever message comes first.
   */
  private committed(tabId: number, frameId: number, documentId: string, at: number): void {
    const byFrame = this.frames.get(tabId)
    if (!byFrame) return
    let dropped = false
    for (const [id, frame] of byFrame) {
      const stale = id === frameId ? frame.documentId !== documentId : frameId === 0 && frame.reportedAt < at
      if (stale) dropped = byFrame.delete(id) || dropped
    }
    if (dropped) this.scheduleReport()
  }
}
