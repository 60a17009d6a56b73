/**
 * A person's own demonstration, recorded from the side panel's Record / Stop in one tab. The page side
 * (./page.ts, injected into every frame of the tab, again after each load) sends what the person does
 * with its element's target signals; this side adds the frame path, waits for the page to settle after
 * each act and takes what changed (the same outline diff, or the whole new page after a navigation,
 * that an agent's action reports), and keeps the acts in order as the calls an agent would have made.
 * Navigations the person starts themselves (the address bar, a bookmark, back and forward) are steps of
 * their own; a navigation a click or a key caused is that act's outcome. A JavaScript dialog (alert,
 * confirm, prompt) is seen through the tab's debugger session, held while the recording runs (Chrome
 * shows its "debugging this browser" bar meanwhile): the dialog is the outcome of the act that opened
 * it, and the person's answer (OK or Cancel, a prompt's text) is a step of its own. Both come from
 * the browser's own events, never from the page. Stop hands the steps to the
 * daemon (`workflow.saveRecording`), which builds the workflow with the agent recording's rules.
 *
 * Who may add a step: only this extension's script in a frame of the recorded tab, and only while the
 * panel's recording runs; the page's own messages and synthetic events are never read (./page.ts).
 *
 * Chrome stops an idle service worker (after about 30 s with nothing to do: the person may pause while
 * recording), and with it this object. The recording is kept in session storage, written at each step
 * and read back when the worker starts again (the page's next act or navigation wakes it): the steps so
 * far and the running recording survive; only an act still being measured when the worker stopped is
 * lost. Session storage is the extension's own (pages and content scripts cannot read it) and is gone
 * when the browser closes.
 */
import type { PersonStep } from '../../src/protocol/workflowPanel'
import { SNAPSHOT_DEFAULT_BYTES } from '../../src/tools/common'
import { snapshotWithFrames } from '../builtins/frames'
import { diffOutline, renderDiff } from '../builtins/pageLibrary/outlineDiff'
import { debuggerSessions, holdDebugger, releaseDebugger } from '../builtins/debuggerSession'
import { messageOf } from '../builtins/errors'
import { cutOutline } from '../builtins/pageLibrary/truncate'
import { runInPage } from '../builtins/pageScript'
import { RequestWatch } from '../builtins/requestWatch'
import { settle, SETTLE, type PageState } from '../builtins/settleWait'
import { SNAPSHOT_NARROW } from '../builtins/snapshotText'
import { getTab, waitForLoad } from '../builtins/tabLookup'
import { framePathOf } from '../builtins/workflows'
import { SessionRecord } from '../lib/sessionStorage'
import type { PageAct } from './page'

export const RECORDER_FILE = 'personRecorder.js'
const MAX_STEPS = 500
/** What a step keeps of the page's change: the post-condition needs its first lines only. */
const REPORT_BYTES = 6_000
const WALK_LIMIT = 3 * SNAPSHOT_DEFAULT_BYTES
/** Navigations the person started (not a page's link or script): each is a step. */
const OWN_TRANSITIONS = new Set([
  'typed',
  'auto_bookmark',
  'generated',
  'keyword',
  'keyword_generated',
  'reload',
])
const ACTS = new Set<PageAct['kind']>(['click', 'type', 'select', 'press'])
/** The reason the recording holds the tab's debugger session (../builtins/debuggerSession.ts). */
const DEBUGGER_HOLD = 'personRecorder'

export interface RecordingView {
  name: string
  tabId: number
  title: string
  steps: number
}

interface Session {
  name: string
  description: string
  tabId: number
  title: string
  steps: PersonStep[]
  /** Acts are taken one after the other: each one's change is measured from the page the last left. */
  queue: Promise<void>
  /** Acts enqueued so far, and a way to cut the settle wait of the one being taken when the next comes. */
  enqueued: number
  cut: (() => void) | undefined
  /** Frame paths by frame id, taken when each frame loads (a frame may be gone when its act is taken). */
  frames: Map<number, Promise<string[]>>
  state: PageState | undefined
  outline: string | undefined
  /** The dialog that opened last, and the act (its number) that was being taken when it did. */
  dialog?: { type: string; message: string; seq: number }
  /**
   * Each act's watch of the requests started since it came: its settle wait lasts until they are
   * answered (a confirm's OK that posts, then shows the answer), as an agent's action's does. A request
   * a page act started before its message came (it comes a moment after the act) is not waited for.
   */
  requests: Map<number, RequestWatch>
}

/** What session storage keeps of a recording: everything but the work in flight. */
type SavedSession = Pick<Session, 'name' | 'description' | 'tabId' | 'title' | 'steps' | 'state' | 'outline'>

/** The recording under way, kept across a restart of the service worker. */
const kept = new SessionRecord<SavedSession | undefined>(
  'bridge.personRecording',
  () => undefined,
  (stored): stored is SavedSession =>
    typeof stored === 'object' &&
    stored !== null &&
    typeof (stored as SavedSession).name === 'string' &&
    Array.isArray((stored as SavedSession).steps),
)

const sessionOf = (saved: SavedSession): Session => ({
  ...saved,
  queue: Promise.resolve(),
  enqueued: 0,
  cut: undefined,
  frames: new Map(),
  requests: new Map(),
})

/** A dialog as an agent's action reports it (src/workflows/postCondition.ts reads it back). */
const dialogReport = (dialog: { type: string; message: string }) =>
  `A dialog opened; the page waits for it.\n[open dialogs: ${JSON.stringify([{ type: dialog.type, message: dialog.message }])}]`

const isWeb = (url: string | undefined) => /^https?:\/\//.test(url ?? '')
const bodyOf = (text: string): string => text.split('\n').slice(2).join('\n')
const utf8 = new TextEncoder()
const clip = (text: string) => {
  if (utf8.encode(text).length <= REPORT_BYTES) return text
  let cut = text.slice(0, REPORT_BYTES)
  while (utf8.encode(cut).length > REPORT_BYTES) cut = cut.slice(0, -200)
  return cut
}

async function pageState(tabId: number): Promise<PageState | undefined> {
  return runInPage<PageState>(await getTab(tabId), 'pageState', {}, 0).catch(() => undefined)
}

export class PersonRecorder {
  private session: Session | undefined
  /** The top page's address each act was taken on (acts of the top frame only), by the act's number. */
  private readonly actPages = new Map<number, string>()
  /** The recording a stopped worker left, read back: every event waits for it. */
  private readonly restored: Promise<void>

  constructor(
    private readonly changed: () => void,
    private readonly warn: (message: string) => void = () => undefined,
  ) {
    this.restored = this.restore()
    // Listeners are added at once (Chrome wakes the worker for them) and run once the recording is back.
    chrome.webNavigation.onCommitted.addListener((d) => void this.restored.then(() => this.committed(d)))
    chrome.webNavigation.onDOMContentLoaded.addListener(({ tabId, frameId }) => {
      void this.restored.then(() => {
        const session = this.session
        if (session?.tabId !== tabId) return
        void this.inject(tabId, [frameId])
        if (frameId !== 0) session.frames.set(frameId, this.framePath(tabId, frameId))
      })
    })
    chrome.debugger.onEvent.addListener((source, method, params) => {
      void this.restored.then(() => this.debuggerEvent(source.tabId, method, params))
    })
    chrome.tabs.onUpdated.addListener((tabId, info) => {
      void this.restored.then(() => {
        const s = this.session
        if (s?.tabId === tabId && info.title !== undefined) {
          s.title = info.title.slice(0, 200)
          this.save(s)
          this.changed()
        }
      })
    })
  }

  private async restore(): Promise<void> {
    const saved = await kept.read().catch(() => undefined)
    if (!saved || this.session) return
    this.session = sessionOf(saved)
    // The page's recorder is still there unless its document changed while the worker was stopped.
    void this.inject(saved.tabId)
    // A new worker life lets go of the debugger sessions of the last one: hold the tab's again.
    await this.watchDialogs(this.session)
    this.changed()
  }

  /**
   * Holds the tab's debugger session, whose events tell of dialogs and of the requests each act
   * started, while the recording runs.
   */
  private async watchDialogs(session: Session): Promise<void> {
    const tab = await getTab(session.tabId).catch(() => undefined)
    try {
      const cdp = await holdDebugger(session.tabId, tab?.url, DEBUGGER_HOLD)
      // A network capture has enabled the domain already, with its own buffers.
      const captured = debuggerSessions().some(
        (s) => s.tabId === session.tabId && s.holds.includes('network'),
      )
      if (!captured) await cdp.send('Network.enable').catch(() => undefined)
    } catch (error) {
      this.warn(`recording ${session.name}: dialogs are not recorded (${messageOf(error)})`)
    }
  }

  /** A dialog opened (the outcome of the act being taken) or was answered (a step). */
  private debuggerEvent(tabId: number | undefined, method: string, params: unknown): void {
    const session = this.session
    if (!session || session.tabId !== tabId || typeof params !== 'object' || params === null) return
    const p = params as { type?: unknown; message?: unknown; result?: unknown; userInput?: unknown }
    if (method.startsWith('Network.')) {
      for (const watch of session.requests.values()) watch.onEvent(method, params as Record<string, unknown>)
    } else if (method === 'Page.javascriptDialogOpening') {
      const message = typeof p.message === 'string' ? p.message.slice(0, 500) : ''
      session.dialog = { type: String(p.type), message, seq: session.enqueued }
      // The act that opened it is over: the page waits for the person's answer.
      session.cut?.()
    } else if (method === 'Page.javascriptDialogClosed') {
      const accept = p.result === true
      const prompt = session.dialog?.type === 'prompt' && accept && typeof p.userInput === 'string'
      const input = { accept, ...(prompt ? { promptText: (p.userInput as string).slice(0, 2000) } : {}) }
      this.enqueue(session, (seq) => this.take(session, seq, { tool: 'browser_handle_dialog', input }))
    }
  }

  /** Writes the recording as it is now; writes are applied in the order they are made. */
  private save(session: Session): void {
    if (this.session !== session) return
    const { name, description, tabId, title, steps, state, outline } = session
    const saved: SavedSession = { name, description, tabId, title, steps, state, outline }
    kept.write(saved).catch((error: unknown) => {
      this.warn(`recording ${name}: could not keep its steps across a worker restart: ${String(error)}`)
    })
  }

  view(): RecordingView | undefined {
    const s = this.session
    return s && { name: s.name, tabId: s.tabId, title: s.title, steps: s.steps.length }
  }

  /** Starts recording the front tab of the last focused window: its page as it is is the first step. */
  async start(name: string, description: string): Promise<RecordingView> {
    await this.restored
    if (this.session) throw new Error(`Already recording ${this.session.name}: stop it first.`)
    const [tab] = await chrome.tabs.query({ active: true, lastFocusedWindow: true, windowType: 'normal' })
    if (tab?.id === undefined || !isWeb(tab.url))
      throw new Error('Open the page to record in the front tab of this window (an http or https page).')
    const session: Session = {
      name,
      description,
      tabId: tab.id,
      title: (tab.title ?? '').slice(0, 200),
      steps: [],
      queue: Promise.resolve(),
      enqueued: 0,
      cut: undefined,
      frames: new Map(),
      state: undefined,
      outline: undefined,
      requests: new Map(),
    }
    this.session = session
    await this.watchDialogs(session)
    this.enqueue(session, async (seq) => {
      await this.inject(session.tabId)
      await this.take(session, seq, { tool: 'browser_navigate', input: { url: tab.url! } }, false)
    })
    await session.queue
    this.changed()
    return this.view()!
  }

  /** Ends the recording: the acts still being measured are waited for; the steps are returned. */
  async stop(): Promise<{ name: string; description: string; steps: PersonStep[] }> {
    await this.restored
    const session = this.session
    if (!session) throw new Error('No recording is running.')
    await this.detach(session.tabId)
    await session.queue
    return { name: session.name, description: session.description, steps: session.steps }
  }

  /** A stop whose save failed: the person goes on, and may stop again. */
  resume(): void {
    if (this.session) void this.inject(this.session.tabId)
  }

  /** After a stop: the recording is saved (or thrown away). */
  clear(): void {
    const session = this.session
    this.session = undefined
    void kept.remove().catch(() => undefined)
    if (session) {
      releaseDebugger(session.tabId, DEBUGGER_HOLD)
      void this.detach(session.tabId)
    }
    this.changed()
  }

  /** A message from ./page.ts; anything that is not the recorded tab's own script's is dropped. */
  pageEvent(sender: chrome.runtime.MessageSender, message: unknown): void {
    void this.restored.then(() => this.act(sender, message))
  }

  private act(sender: chrome.runtime.MessageSender, message: unknown): void {
    const session = this.session
    if (
      !session ||
      sender.id !== chrome.runtime.id ||
      sender.tab?.id !== session.tabId ||
      typeof sender.frameId !== 'number' ||
      !isWeb(sender.url)
    )
      return
    const act = message as Partial<PageAct> | null
    if (typeof act !== 'object' || act === null || !ACTS.has(act.kind!)) return
    const target = act.target && typeof act.target === 'object' ? act.target : undefined
    const frameId = sender.frameId
    // The origin is the browser's word for the frame, not the page's.
    const origin = sender.origin ?? new URL(sender.url!).origin
    const step = (input: PersonStep['input']): PersonStep['tool'] | undefined => {
      switch (act.kind) {
        case 'click':
          return target ? 'browser_click' : undefined
        case 'type':
          return target && typeof input.text === 'string' ? 'browser_type' : undefined
        case 'select':
          return target && Array.isArray(input.values) ? 'browser_select_option' : undefined
        case 'press':
          return typeof input.key === 'string' ? 'browser_press_key' : undefined
      }
      return undefined
    }
    const input: PersonStep['input'] = {
      ...(typeof act.text === 'string' ? { text: act.text.slice(0, 20_000) } : {}),
      ...(Array.isArray(act.values) ? { values: act.values.map(String).slice(0, 100) } : {}),
      ...(typeof act.key === 'string' ? { key: act.key.slice(0, 60) } : {}),
      ...(act.submit === true ? { submit: true } : {}),
    }
    const tool = step(input)
    if (!tool) return
    // The frame's path now, while it is there: the act may end its page.
    const path = frameId ? (session.frames.get(frameId) ?? this.framePath(session.tabId, frameId)) : undefined
    const page = frameId === 0 ? sender.url : undefined
    this.enqueue(
      session,
      async (seq) => {
        const frame = (await path) ?? []
        const located = target && { ...target, origin, ...(frame.length ? { frame } : {}) }
        await this.take(session, seq, { tool, input, ...(located ? { target: located } : {}) })
      },
      page,
    )
  }

  private committed(d: chrome.webNavigation.WebNavigationTransitionCallbackDetails): void {
    const session = this.session
    if (session?.tabId !== d.tabId || d.frameId !== 0 || !isWeb(d.url)) return
    const own =
      OWN_TRANSITIONS.has(d.transitionType) ||
      d.transitionQualifiers.includes('from_address_bar') ||
      d.transitionQualifiers.includes('forward_back')
    if (!own) return
    this.enqueue(session, async (seq) => {
      await waitForLoad(session.tabId, SETTLE.loadMs).catch(() => undefined)
      await this.take(session, seq, { tool: 'browser_navigate', input: { url: d.url } })
    })
  }

  private framePath(tabId: number, frameId: number): Promise<string[]> {
    const path = getTab(tabId).then((tab) => framePathOf(tab, frameId))
    path.catch(() => undefined)
    return path
  }

  /** Acts are taken in the order they came; a new one cuts short the settle wait of the one before. */
  private enqueue(session: Session, job: (seq: number) => Promise<void>, page?: string): void {
    const seq = ++session.enqueued
    if (page !== undefined) this.actPages.set(seq, page)
    session.requests.set(seq, new RequestWatch())
    session.cut?.()
    session.queue = session.queue
      .then(() => job(seq))
      .catch(() => undefined)
      .finally(() => session.requests.delete(seq))
  }

  /**
   * Waits for the page to settle after the act (or for the person's next act, whichever is first),
   * then keeps it with what changed.
   */
  private async take(
    session: Session,
    seq: number,
    act: Omit<PersonStep, 'report'>,
    wait = true,
  ): Promise<void> {
    if (this.session !== session || session.steps.length >= MAX_STEPS) return
    const { tabId } = session
    let cut = session.enqueued > seq
    const next = new Promise<void>((resolve) => (session.cut = resolve)).then(() => (cut = true))
    if (wait && !cut) {
      const requests = session.requests.get(seq)
      const settled = async () => {
        await settle(tabId, () => pageState(tabId), requests)
        // A click that started a navigation: its outcome is the page that loads.
        if (!cut && (await getTab(tabId)).status === 'loading') {
          await waitForLoad(tabId, SETTLE.loadMs).catch(() => undefined)
          await settle(tabId, () => pageState(tabId), requests)
        }
      }
      await Promise.race([settled(), next])
    }
    session.cut = undefined
    session.requests.delete(seq)
    // The next act came before the page settled, but the person took it on another page than the one
    // this act was taken on: the page it loaded is this act's outcome (a key or a click that
    // navigated, then an act on the new page), not the next act's.
    const nextPage = this.actPages.get(seq + 1)
    if (cut && nextPage !== undefined && session.state && nextPage !== session.state.url) cut = false
    for (const n of this.actPages.keys()) if (n <= seq) this.actPages.delete(n)
    // A dialog this act opened is its outcome; the page is measured again after the answer.
    const dialog = session.dialog?.seq === seq ? session.dialog : undefined
    // Typing (without Enter) or a choice in a list leaves the page where it is: another document now
    // is the next act's doing, whose message may come after the page it loaded (from another frame).
    const stays = (act.tool === 'browser_type' && !act.input.submit) || act.tool === 'browser_select_option'
    const report = dialog ? dialogReport(dialog) : await this.report(session, cut || stays).catch(() => '')
    session.steps.push({ ...act, report: clip(report) })
    this.save(session)
    this.changed()
  }

  /**
   * The page's change since the last step, as an agent's action reports it. When the next act came
   * before the page settled (or this act cannot load a page) and the page is another document now,
   * the change is the next act's: this one reports nothing, and the next is measured from the page as
   * it was.
   */
  private async report(session: Session, notItsPage: boolean): Promise<string> {
    const tab = await getTab(session.tabId)
    const before = session.state
    let after: PageState | undefined
    let framed: Awaited<ReturnType<typeof snapshotWithFrames>>
    // The page read is one document's: one that changed while it was read (the next act loading a
    // page) is read again.
    for (let tries = 0; ; tries++) {
      after = await pageState(session.tabId)
      if (notItsPage && before && after?.documentId !== before.documentId) return ''
      framed = await snapshotWithFrames(tab, { walkLimit: WALK_LIMIT })
      const again = await pageState(session.tabId)
      if (again?.documentId === after?.documentId || tries === 2) break
    }
    session.state = after
    const previous = session.outline
    session.outline = framed.text
    if (!before || !after || before.documentId !== after.documentId || previous === undefined)
      return cutOutline(framed.text, {
        maxBytes: REPORT_BYTES,
        complete: framed.complete,
        tool: 'browser_snapshot',
        narrow: SNAPSHOT_NARROW,
      }).text
    const url = before.url !== after.url ? `URL: ${after.url}\n` : ''
    return `${url}${renderDiff(diffOutline(bodyOf(previous), bodyOf(framed.text)), REPORT_BYTES)}`
  }

  private async inject(tabId: number, frameIds?: number[]): Promise<void> {
    await chrome.scripting
      .executeScript({
        target: frameIds ? { tabId, frameIds } : { tabId, allFrames: true },
        files: [RECORDER_FILE],
      })
      .catch(() => undefined)
  }

  private async detach(tabId: number): Promise<void> {
    await chrome.scripting
      .executeScript({
        target: { tabId, allFrames: true },
        func: () => globalThis.__bridgePersonRecorder?.stop(),
      })
      .catch(() => undefined)
  }
}
