/**
 * Actions that settle and report. Around a click, typing, a key, a form fill, a select or a navigation:
 * the outline before; the action, with the tab's network requests and the page's DOM changes watched;
 * a short, bounded wait until the requests the action started have finished and the DOM has been still
 * for a moment (or a dialog opened, or the time is up); then what changed as a snapshot diff, or the
 * whole new page after a navigation or on request (`snapshot: "full"`).
 */
import { SNAPSHOT_DEFAULT_BYTES } from '../../src/tools/common'
import { debuggerSessions, openDialog, withDebugger } from './debuggerSession'
import { snapshotWithFrames } from './frames'
import { diffOutline, renderDiff } from './pageLibrary/outlineDiff'
import { cutOutline } from './pageLibrary/truncate'
import { runInPage } from './pageScript'
import { SNAPSHOT_NARROW } from './snapshotText'
import { RequestWatch } from './requestWatch'
import { describeWait, settle, SETTLE, type PageState, type SettleOutcome } from './settleWait'
import { getTab } from './tabLookup'

export type SnapshotMode = 'diff' | 'full' | 'none'

export interface ReportOptions {
  snapshot?: SnapshotMode
  maxLength?: number
  /** A workflow step's post-condition (BuiltinContext.settledWhen): may end the quiet wait early. */
  until?: () => Promise<boolean>
}

/** What the action itself has to say (failures, values that did not stick), and the fields it set. */
export interface ActionNotes {
  lines?: string[]
  /** Refs of the fields the action set: their own changed lines are left out of the diff. */
  quiet?: string[]
}

export { SETTLE } from './settleWait'
const WALK_LIMIT = 3 * SNAPSHOT_DEFAULT_BYTES

async function pageState(tabId: number): Promise<PageState | undefined> {
  if (openDialog(tabId)) return undefined
  // A page first looked at must stay still under watch for one poll to count as settled.
  const args = { assumeStillMs: SETTLE.quietMs - SETTLE.pollMs }
  return runInPage<PageState>(await getTab(tabId), 'pageState', args, 0).catch(() => undefined)
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
  // Read inside the session (so both outlines see the page's click handlers alike, clickListeners.ts).
  const readBefore = async () =>
    [await pageState(tabId), mode === 'diff' ? await outline(tabId) : undefined] as const
  const captured = debuggerSessions().some((s) => s.tabId === tabId && s.holds.includes('network'))
  let attached = false
  const watched = withDebugger(tabId, tab.url, async (cdp) => {
    attached = true
    const [before, beforeOutline] = await readBefore()
    const requests = new RequestWatch()
    let dialogOpened!: () => void
    const dialog = new Promise<void>((resolve) => (dialogOpened = resolve))
    const off = cdp.on((method, params) => {
      if (method.startsWith('Network.')) requests.onEvent(method, params)
      else if (method === 'Page.javascriptDialogOpening') dialogOpened()
    })
    try {
      // A network recording has enabled the domain already, with its own buffers.
      if (!captured) await cdp.send('Network.enable').catch(() => undefined)
      // An action that opens a dialog does not return until the dialog closes: stop waiting for it then.
      const running = act()
      running.catch(() => undefined)
      const notes = await Promise.race([running, dialog.then(() => undefined)])
      const waited = await settle(tabId, () => pageState(tabId), requests, SETTLE.pollMs, options.until)
      return await withWait(waited, maxBytes, (room) =>
        describe(tabId, mode, room, before, beforeOutline, notes ?? {}, waited.page),
      )
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
    const [before, beforeOutline] = await readBefore()
    const notes = await act()
    const waited = await settle(tabId, () => pageState(tabId), undefined)
    return withWait(waited, maxBytes, (room) =>
      describe(tabId, mode, room, before, beforeOutline, notes ?? {}, waited.page),
    )
  }
}

/**
 * The report with a last line on the settle wait when it was long enough to tell (last, so the page's
 * change keeps its place at the top); the report gets the budget the line leaves.
 */
async function withWait(
  waited: SettleOutcome,
  maxBytes: number,
  report: (maxBytes: number) => Promise<string>,
): Promise<string> {
  const line = describeWait(waited)
  if (!line) return report(maxBytes)
  return `${await report(maxBytes - new TextEncoder().encode(line).length - 1)}
${line}`
}

async function describe(
  tabId: number,
  mode: SnapshotMode,
  maxBytes: number,
  before: PageState | undefined,
  beforeOutline: string | undefined,
  notes: ActionNotes,
  settled?: PageState,
): Promise<string> {
  const lines = [...(notes.lines ?? [])]
  if (openDialog(tabId)) {
    // The page is frozen until the dialog is answered; the result's dialog line says how.
    lines.push('A dialog opened; the page waits for it.')
    return lines.join('\n')
  }
  // The settle wait's last look is the page as it is now (it ended because nothing was changing); a
  // page read after a load without a look before needs none: it is given in full.
  const after = settled ?? (before || mode === 'none' ? await pageState(tabId) : undefined)
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

/**
 * After a navigation has loaded: the page in full once its DOM is still (looked at at once: the load
 * is over, and a page whose scripts are still rendering is waited for as after an action).
 */
export async function pageAfterLoad(tabId: number, maxLength?: number): Promise<string> {
  const waited = await settle(tabId, () => pageState(tabId), undefined, 0)
  return withWait(waited, maxLength ?? SNAPSHOT_DEFAULT_BYTES, (room) =>
    describe(tabId, 'full', room, undefined, undefined, {}),
  )
}
