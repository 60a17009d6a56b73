/**
 * The MV3 service worker. Chrome may stop it whenever it is idle and start it again on any event, so
 * every listener is registered here synchronously at the top level and delegates to one BackgroundApp
 * built per worker life. The open socket's pings keep the worker alive while connected; a 30 s alarm
 * wakes it to reconnect when it was stopped anyway.
 */
import { BackgroundApp } from './background/app'
import { PANEL_PORT_NAME, type PanelCommand } from './shared/panelTypes'
import type { SiteToolsReport } from './shared/siteToolTypes'

const KEEPALIVE_ALARM = 'bridge-keepalive'
const app = new BackgroundApp()

chrome.runtime.onInstalled.addListener(() => {
  void chrome.sidePanel.setPanelBehavior({ openPanelOnActionClick: true }).catch(() => undefined)
})
void chrome.alarms.create(KEEPALIVE_ALARM, { periodInMinutes: 0.5 })
chrome.alarms.onAlarm.addListener((alarm) => {
  if (alarm.name !== KEEPALIVE_ALARM) return
  app.connection.ensure()
  void app.tracker.sweep(true)
})

// Readiness: not-ready matching tabs are probed every 2 s (a login in the page), ready ones every 16 s.
let sweeps = 0
setInterval(() => {
  sweeps++
  void app.tracker.sweep(sweeps % 8 === 0, sweeps)
}, 2_000)

chrome.tabs.onCreated.addListener((tab) => {
  app.tracker.upsert(tab)
  app.tracker.emitChanges()
})
chrome.tabs.onUpdated.addListener((_id, change, tab) => app.tracker.tabUpdated(tab, change))
chrome.tabs.onRemoved.addListener((tabId) => app.tracker.tabRemoved(tabId))
chrome.tabs.onActivated.addListener(({ tabId, windowId }) => app.tracker.tabActivated(tabId, windowId))
chrome.tabs.onReplaced.addListener((added, removed) => {
  app.tracker.tabRemoved(removed)
  void chrome.tabs.get(added).then(
    (tab) => app.tracker.tabUpdated(tab, { status: tab.status, url: tab.url }),
    () => undefined,
  )
})
chrome.windows.onFocusChanged.addListener((windowId) => app.tracker.windowFocused(windowId))

// A cookie change on a site is the best signal of a login or logout there: re-probe its tabs soon.
const cookieDomains = new Set<string>()
let cookieTimer: ReturnType<typeof setTimeout> | null = null
chrome.cookies.onChanged.addListener(({ cookie }) => {
  cookieDomains.add(cookie.domain)
  cookieTimer ??= setTimeout(() => {
    cookieTimer = null
    for (const d of cookieDomains) app.tracker.refreshHost(d)
    cookieDomains.clear()
  }, 300)
})

chrome.runtime.onConnect.addListener((port) => {
  app.panels.accept(port)
  // Every side-panel open checks the audit log again (the witness ignores ports that are no panel's).
  if (port.name === PANEL_PORT_NAME) void app.auditWitness.check()
})
chrome.runtime.onMessage.addListener((message: unknown, sender, sendResponse: (r: unknown) => void) => {
  if (sender.id !== chrome.runtime.id || typeof message !== 'object' || message === null) return false
  const m = message as { adapterEvent?: unknown; channelRefused?: { plugin?: unknown }; panel?: PanelCommand }
  // Adapter events come only from the content script of a tab's top document.
  if (m.adapterEvent !== undefined && sender.tab?.id !== undefined && sender.frameId === 0) {
    app.adapterEvent(sender.tab.id, m.adapterEvent)
    return false
  }
  // A turned-on site's frame reporting its WebMCP tools (siteContent.js); the origin is Chrome's.
  if ((message as { siteTools?: unknown }).siteTools === 'report' && sender.tab?.id !== undefined) {
    app.sites.frameReport(
      sender.tab.id,
      sender.frameId ?? 0,
      sender.origin,
      sender.documentId,
      message as SiteToolsReport,
    )
    return false
  }
  // A person's act in the tab the panel records (recorder/page.ts); the recorder checks the sender.
  if ((message as { personRecorder?: unknown }).personRecorder !== undefined) {
    app.recorder.pageEvent(sender, (message as { personRecorder: unknown }).personRecorder)
    return false
  }
  if (m.channelRefused !== undefined && sender.tab?.id !== undefined) {
    app.channelRefused(sender.tab.id, m.channelRefused.plugin)
    return false
  }
  // Panel commands come only from extension pages, never from content scripts in web pages.
  if (m.panel !== undefined && sender.url?.startsWith(`chrome-extension://${chrome.runtime.id}/`)) {
    void app.panelCommand(m.panel).then(sendResponse)
    return true
  }
  return false
})

chrome.notifications.onClicked.addListener((id) => {
  if (id !== 'bridge-approvals') return
  void chrome.windows
    .getLastFocused()
    .then((w) => (w.id !== undefined ? chrome.sidePanel.open({ windowId: w.id }) : undefined))
    .catch(() => undefined)
})
