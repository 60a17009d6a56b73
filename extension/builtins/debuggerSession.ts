/**
 * One chrome.debugger session per tab, shared by every built-in tool that needs the DevTools protocol
 * (trusted input, screenshots, console, network, dialogs). A session stays attached while something
 * holds it (a network capture) and detaches shortly after its last use otherwise, so Chrome's
 * "debugging this browser" bar shows only while bridge is actually acting.
 */
import { fromChromeError, internal, messageOf } from './errors'
import { recordExtensionLog } from './extensionLog'

const PROTOCOL_VERSION = '1.3'
const IDLE_DETACH_MS = 5_000

type EventListener = (method: string, params: Record<string, unknown>) => void

export interface OpenDialog {
  type: string
  message: string
}

interface Session {
  /** The JavaScript dialog open in the tab, as reported while attached. */
  dialog?: OpenDialog
  holds: Set<string>
  users: number
  listeners: Set<EventListener>
  idleTimer?: ReturnType<typeof setTimeout>
}

const sessions = new Map<number, Session>()
const attaching = new Map<number, Promise<Session>>()

chrome.debugger.onEvent.addListener((source, method, params) => {
  const session = source.tabId === undefined ? undefined : sessions.get(source.tabId)
  if (!session) return
  const p = (params ?? {}) as Record<string, unknown>
  if (method === 'Page.javascriptDialogOpening')
    session.dialog = { type: String(p.type), message: String(p.message) }
  if (method === 'Page.javascriptDialogClosed') {
    session.dialog = undefined
    scheduleIdleDetach(source.tabId!, session)
  }
  for (const listener of session.listeners) listener(method, p)
})

// The user can cancel the debugger bar, or the tab can close: forget the session either way.
chrome.debugger.onDetach.addListener((source) => {
  if (source.tabId === undefined) return
  const session = sessions.get(source.tabId)
  if (session?.idleTimer) clearTimeout(session.idleTimer)
  sessions.delete(source.tabId)
  for (const hook of detachHooks) hook(source.tabId)
})

// A new service-worker life starts with no sessions; attachments left by the previous one would keep
// Chrome's debugging bar up forever, so let them go. Detaching a tab we are not attached to fails
// harmlessly (that is DevTools' or another extension's attachment).
chrome.debugger
  .getTargets()
  .then((targets) => {
    for (const target of targets)
      if (
        target.attached &&
        target.tabId !== undefined &&
        !sessions.has(target.tabId) &&
        !attaching.has(target.tabId)
      )
        chrome.debugger.detach({ tabId: target.tabId }).catch(() => undefined)
  })
  .catch(() => undefined)

const detachHooks = new Set<(tabId: number) => void>()
/** Called whenever a tab's session ends (released, cancelled by the user, tab closed). */
export function onSessionDetached(hook: (tabId: number) => void): void {
  detachHooks.add(hook)
}

async function attach(tabId: number, url: string | undefined): Promise<Session> {
  const existing = sessions.get(tabId)
  if (existing) return existing
  const pending = attaching.get(tabId)
  if (pending) return pending
  const promise = (async () => {
    try {
      await chrome.debugger.attach({ tabId }, PROTOCOL_VERSION)
    } catch (err) {
      if (!/already attached/i.test(messageOf(err))) throw fromChromeError(err, tabId, url)
      // After a service-worker restart our own old attachment may still be there: take it back.
      // Detaching fails when the attachment belongs to DevTools or another extension instead.
      try {
        await chrome.debugger.detach({ tabId })
        await chrome.debugger.attach({ tabId }, PROTOCOL_VERSION)
      } catch {
        throw internal(
          `another debugger (DevTools or another extension) is attached to tab ${tabId}: close it and try again`,
        )
      }
    }
    const session: Session = { holds: new Set(), users: 0, listeners: new Set() }
    sessions.set(tabId, session)
    // With Page enabled Chrome reports dialogs (and lets us close them) for as long as we stay attached.
    // Not awaited: while a dialog is already open the reply only comes once it closes.
    chrome.debugger.sendCommand({ tabId }, 'Page.enable').catch((err: unknown) => {
      recordExtensionLog('warning', `debugger: Page.enable failed in tab ${tabId}: ${messageOf(err)}`)
    })
    return session
  })()
  attaching.set(tabId, promise)
  try {
    return await promise
  } finally {
    attaching.delete(tabId)
  }
}

function scheduleIdleDetach(tabId: number, session: Session): void {
  if (session.idleTimer) clearTimeout(session.idleTimer)
  // An open dialog keeps the session: detaching would lose the only handle to close it.
  const busy = () => session.users > 0 || session.holds.size > 0 || session.dialog !== undefined
  if (busy()) return
  session.idleTimer = setTimeout(() => {
    if (sessions.get(tabId) !== session || busy()) return
    sessions.delete(tabId)
    for (const hook of detachHooks) hook(tabId)
    chrome.debugger.detach({ tabId }).catch(() => undefined)
  }, IDLE_DETACH_MS)
}

export interface Cdp {
  readonly tabId: number
  /** The dialog open in the tab, if one opened while attached. */
  dialog(): OpenDialog | undefined
  send<T = Record<string, unknown>>(method: string, params?: Record<string, unknown>): Promise<T>
  /** Subscribes to protocol events of this tab until the returned function is called. */
  on(listener: EventListener): () => void
}

function cdpFor(tabId: number, url: string | undefined): Cdp {
  return {
    tabId,
    dialog: () => sessions.get(tabId)?.dialog,
    async send<T>(method: string, params?: Record<string, unknown>): Promise<T> {
      try {
        return (await chrome.debugger.sendCommand({ tabId }, method, params)) as T
      } catch (err) {
        throw fromChromeError(err, tabId, url)
      }
    },
    on(listener) {
      const session = sessions.get(tabId)
      session?.listeners.add(listener)
      return () => session?.listeners.delete(listener)
    },
  }
}

/** Runs `fn` with an attached session; the session detaches after a short idle time unless held. */
export async function withDebugger<T>(
  tabId: number,
  url: string | undefined,
  fn: (cdp: Cdp) => Promise<T>,
): Promise<T> {
  const session = await attach(tabId, url)
  if (session.idleTimer) clearTimeout(session.idleTimer)
  session.users++
  try {
    return await fn(cdpFor(tabId, url))
  } finally {
    session.users--
    scheduleIdleDetach(tabId, session)
  }
}

/** Keeps the tab's session attached under `reason` (e.g. `network`) until released. */
export async function holdDebugger(tabId: number, url: string | undefined, reason: string): Promise<Cdp> {
  const session = await attach(tabId, url)
  if (session.idleTimer) clearTimeout(session.idleTimer)
  session.holds.add(reason)
  return cdpFor(tabId, url)
}

export function releaseDebugger(tabId: number, reason: string): void {
  const session = sessions.get(tabId)
  if (!session) return
  session.holds.delete(reason)
  scheduleIdleDetach(tabId, session)
}

/** Tabs with an attached session and what holds each. */
export function debuggerSessions(): { tabId: number; holds: string[]; dialogOpen: boolean }[] {
  return [...sessions].map(([tabId, s]) => ({
    tabId,
    holds: [...s.holds],
    dialogOpen: s.dialog !== undefined,
  }))
}

/** Forgets a tab's dialog once it is answered (Chrome's closed event may come a moment later). */
export function forgetDialog(tabId: number): void {
  const session = sessions.get(tabId)
  if (!session) return
  session.dialog = undefined
  scheduleIdleDetach(tabId, session)
}

/** The JavaScript dialog open in a tab, as seen by an attached session. */
export function openDialog(tabId: number): OpenDialog | undefined {
  return sessions.get(tabId)?.dialog
}

/** Every tab with an open dialog bridge knows of. */
export function openDialogs(): { tabId: number; type: string; message: string }[] {
  return [...sessions].flatMap(([tabId, s]) => (s.dialog ? [{ tabId, ...s.dialog }] : []))
}
