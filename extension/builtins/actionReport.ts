/**
 * Actions that settle and report. Around a click, typing, a key, a form fill, a select or a navigation:
 * the outline before; the action, with the tab's network requests and the page's DOM changes watched;
 * a short, bounded wait until the requests the action started have finished and the DOM has been still
 * for a moment (or a dialog opened, or the time is up); then what changed as a snapshot diff, or the
 * whole new page after a navigation or on request (`snapshot: "full"`).
 */
import { SNAPSHOT_DEFAULT_BYTES } from '../../src/tools/common'
import { debuggerSessions, openDialog, withDebugger } from './debuggerSession'
import { sleep } from './errors'
import { snapshotWithFrames } from './frames'
import { diffOutline, renderDiff } from './pageLibrary/outlineDiff'
import { cutOutline } from './pageLibrary/truncate'
import { runInPage } from './pageScript'
import { SNAPSHOT_NARROW } from './snapshotText'
import { getTab, waitForLoad } from './tabLookup'

export type SnapshotMode = 'diff' | 'full' | 'none'

export interface ReportOptions {
  snapshot?: SnapshotMode
  maxLength?: number
}

/** What the action itself has to say (failures, values that did not stick), and the fields it set. */
export interface ActionNotes {
  lines?: string[]
  /** Refs of the fields the action set: their own changed lines are left out of the diff. */
  quiet?: string[]
}

/** The settle wait's bounds: long enough for a page's fetch and render, short enough to stay cheap. */
export const SETTLE = { maxMs: 3_000, quietMs: 150, pollMs: 50, loadMs: 15_000 }
/** Requests that never finish by design; they must not hold the wait. */
const LONG_LIVED = new Set(['EventSource', 'WebSocket', 'Ping'])
const WALK_LIMIT = 3 * SNAPSHOT_DEFAULT_BYTES

interface PageState {
  documentId: string
  url: string
  quietMs: number
  loading: boolean
}

async function pageState(tabId: number): Promise<PageState | undefined> {
  if (openDialog(tabId)) return undefined
  return runInPage<PageState>(await getTab(tabId), 'pageState', {}, 0).catch(() => undefined)
}

async function outline(tabId: number, walkLimit = WALK_LIMIT): Promise<string | undefined> {
  if (openDialog(tabId)) return undefined
  try {
    return (await snapshotWithFrames(await getTab(tabId), { walkLimit })).text
  } catch {
    return undefined
  }
}

/** The outline without its URL and Title lines. */
const bodyOf = (text: string): string => text.split('\n').slice(2).join('\n')

/**
 * Runs `act` on the tab and returns the report: the action's own notes, then the page's change. The
 * debugger session stays attached for the whole of it, so dialogs and requests are seen.
 */
export async function reportAction(
  tabId: number,
  options: ReportOptions,
  act: () => Promise<ActionNotes | void>,
): Promise<string> {
  const mode = options.snapshot ?? 'diff'
  const maxBytes = options.maxLength ?? SNAPSHOT_DEFAULT_BYTES
  const tab = await getTab(tabId)
  const before = await pageState(tabId)
  const beforeOutline = mode === 'diff' ? await outline(tabId) : undefined
  const captured = debuggerSessions().some((s) => s.tabId === tabId && s.holds.includes('network'))
  let attached = false
  const watched = withDebugger(tabId, tab.url, async (cdp) => {
    attached = true
    const inflight = new Set<string>()
    let dialogOpened!: () => void
    const dialog = new Promise<void>((resolve) => (dialogOpened = resolve))
    const off = cdp.on((method, params) => {
      if (method === 'Network.requestWillBeSent' && !LONG_LIVED.has(String(params.type)))
        inflight.add(String(params.requestId))
      else if (method === 'Network.loadingFinished' || method === 'Network.loadingFailed')
        inflight.delete(String(params.requestId))
      else if (method === 'Page.javascriptDialogOpening') dialogOpened()
    })
    try {
      // A network recording has enabled the domain already, with its own buffers.
      if (!captured) await cdp.send('Network.enable').catch(() => undefined)
      // An action that opens a dialog does not return until the dialog closes: stop waiting for it then.
      const running = act()
      running.catch(() => undefined)
      const notes = await Promise.race([running, dialog.then(() => undefined)])
      await settle(tabId, inflight)
      return await describe(tabId, mode, maxBytes, before, beforeOutline, notes ?? {})
    } finally {
      off()
    }
  })
  try {
    return await watched
  } catch (err) {
    if (attached) throw err
    // No debugger session (DevTools or another extension holds the tab): actions that need none still
    // run, and settle on the DOM alone.
    const notes = await act()
    await settle(tabId, new Set())
    return describe(tabId, mode, maxBytes, before, beforeOutline, notes ?? {})
  }
}

async function settle(tabId: number, inflight: Set<string>): Promise<void> {
  const started = Date.now()
  await sleep(SETTLE.pollMs)
  for (;;) {
    if (openDialog(tabId)) return
    const tab = await getTab(tabId)
    if (tab.status === 'loading') {
      await waitForLoad(tabId, SETTLE.loadMs).catch(() => undefined)
      inflight.clear()
    }
    const state = await pageState(tabId)
    if (state && !state.loading && inflight.size === 0 && state.quietMs >= SETTLE.quietMs) return
    if (Date.now() - started > SETTLE.maxMs) return
    await sleep(SETTLE.pollMs)
  }
}

async function describe(
  tabId: number,
  mode: SnapshotMode,
  maxBytes: number,
  before: PageState | undefined,
  beforeOutline: string | undefined,
  notes: ActionNotes,
): Promise<string> {
  const lines = [...(notes.lines ?? [])]
  if (openDialog(tabId)) {
    // The page is frozen until the dialog is answered; the result's dialog line says how.
    lines.push('A dialog opened; the page waits for it.')
    return lines.join('\n')
  }
  const after = await pageState(tabId)
  const navigated = !before || !after || before.documentId !== after.documentId
  if (mode === 'none') {
    if (after && before?.url !== after.url) lines.push(`URL: ${after.url}`)
    return lines.join('\n') || 'Done.'
  }
  const room = maxBytes - new TextEncoder().encode(lines.join('\n')).length - 1
  if (navigated || mode === 'full' || beforeOutline === undefined) {
    const framed = await snapshotWithFrames(await getTab(tabId), { walkLimit: Math.max(room, 100) * 3 })
    const cut = cutOutline(framed.text, {
      maxBytes: Math.max(room, 100),
      complete: framed.complete,
      tool: 'browser_snapshot',
      narrow: SNAPSHOT_NARROW,
    })
    lines.push(cut.text)
    return lines.join('\n')
  }
  if (after && before?.url !== after.url) lines.push(`URL: ${after.url}`)
  const afterOutline = (await outline(tabId)) ?? ''
  lines.push(renderDiff(diffOutline(bodyOf(beforeOutline), bodyOf(afterOutline), notes.quiet), room))
  return lines.join('\n')
}

/** After a navigation has loaded: a moment for the page's own scripts to render, then the page in full. */
export async function pageAfterLoad(tabId: number, maxLength?: number): Promise<string> {
  await settle(tabId, new Set())
  return describe(tabId, 'full', maxLength ?? SNAPSHOT_DEFAULT_BYTES, undefined, undefined, {})
}
