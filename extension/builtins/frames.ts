/**
 * Frames: the snapshot of a tab with each iframe's document outlined under its iframe line (same- and
 * cross-origin alike, each run in its own frame), and element positions in top-level viewport
 * coordinates for trusted input, adding up the offsets of the frames around an element.
 */
import { clickListenerPaths } from './clickListeners'
import { notFound } from './errors'
import { frameOfRef, runInPage } from './pageScript'

const FRAME_MARK = '\u0001frame '
const MAX_FRAME_DEPTH = 5

export interface SnapshotOptions {
  selector?: string
  /** Stops the walk of a huge page after about this many characters (frames included). */
  walkLimit: number
  depth?: number
}

export interface FramedSnapshot {
  text: string
  /** False when a walk stopped at walkLimit: the page has more than the text holds. */
  complete: boolean
}

/**
 * Chrome's frame ids of a document's child frames, by their position among its iframe elements. An
 * extension cannot ask an element for its frame id in Chrome, so frames are matched by URL, in order.
 */
export async function childFrameIds(tab: chrome.tabs.Tab, parentFrameId: number): Promise<number[]> {
  const elements = await runInPage<{ src: string }[]>(tab, 'frameList', {}, parentFrameId)
  const frames = (await chrome.webNavigation.getAllFrames({ tabId: tab.id! })) ?? []
  const children = frames
    .filter((f) => f.parentFrameId === parentFrameId)
    .sort((a, b) => a.frameId - b.frameId)
  const used = new Set<number>()
  const take = (match: (f: chrome.webNavigation.GetAllFrameResultDetails) => boolean) => {
    const frame = children.find((f) => !used.has(f.frameId) && match(f))
    if (frame) used.add(frame.frameId)
    return frame?.frameId
  }
  const ids: (number | undefined)[] = elements.map((el) => take((f) => f.url === el.src))
  // A frame that navigated away from its src: the remaining frames, in order.
  return ids.map((id) => id ?? take(() => true) ?? -1)
}

/** The outline of the top frame with every reachable frame inlined, uncut (see cutOutline). */
export async function snapshotWithFrames(
  tab: chrome.tabs.Tab,
  opts: SnapshotOptions,
): Promise<FramedSnapshot> {
  const clickPaths = await clickListenerPaths(tab)
  const top = await runInPage<{ text: string; complete: boolean }>(
    tab,
    'snapshot',
    clickPaths?.length ? { ...opts, clickPaths } : opts,
    0,
  )
  const state = { complete: top.complete }
  const text = await inlineFrames(tab, top.text, opts, 0, 0, state)
  return { text, complete: state.complete }
}

async function inlineFrames(
  tab: chrome.tabs.Tab,
  text: string,
  opts: SnapshotOptions,
  level: number,
  parentFrameId: number,
  state: { complete: boolean },
): Promise<string> {
  if (!text.includes(FRAME_MARK)) return text
  const frameIds = await childFrameIds(tab, parentFrameId)
  const out: string[] = []
  let budget = opts.walkLimit - text.length
  for (const line of text.split('\n')) {
    const at = line.indexOf(FRAME_MARK)
    if (at < 0) {
      out.push(line)
      continue
    }
    const indent = line.slice(0, at)
    const frameId = frameIds[Number(line.slice(at + FRAME_MARK.length))] ?? -1
    if (frameId < 0) {
      out.push(`${indent}- text: (frame not loaded)`)
      continue
    }
    if (level >= MAX_FRAME_DEPTH || budget <= 200) {
      if (budget <= 200) state.complete = false
      out.push(`${indent}- text: (frame content left out: snapshot with a smaller scope)`)
      continue
    }
    try {
      const child = await runInPage<{ text: string; complete: boolean }>(
        tab,
        'snapshot',
        { walkLimit: budget, depth: opts.depth },
        frameId,
      )
      if (!child.complete) state.complete = false
      const inner = await inlineFrames(
        tab,
        child.text,
        { ...opts, walkLimit: budget },
        level + 1,
        frameId,
        state,
      )
      // The child's "URL:" line says what the frame shows; its "Title:" line is dropped.
      const lines = inner.split('\n').filter((l) => !l.startsWith('Title: '))
      const body = lines.map((l) => (l.startsWith('URL: ') ? `- document ${JSON.stringify(l.slice(5))}` : l))
      out.push(...body.map((l) => indent + l))
      budget -= body.join('\n').length
    } catch (err) {
      out.push(`${indent}- text: (frame not readable: ${err instanceof Error ? err.message : String(err)})`)
    }
  }
  return out.join('\n')
}

interface Point {
  x: number
  y: number
}

/** Offset of a frame's viewport in the top-level viewport. */
async function frameOffset(tab: chrome.tabs.Tab, frameId: number, scroll: boolean): Promise<Point> {
  let x = 0
  let y = 0
  let current = frameId
  for (let guard = 0; current !== 0 && guard < 10; guard++) {
    const frame = await chrome.webNavigation.getFrame({ tabId: tab.id!, frameId: current })
    if (!frame) throw notFound(`frame ${current} is gone from tab ${tab.id}: take a new browser_snapshot`)
    const index = (await childFrameIds(tab, frame.parentFrameId)).indexOf(current)
    const rect = await runInPage<Point>(tab, 'frameRect', { index, scroll }, frame.parentFrameId)
    x += rect.x
    y += rect.y
    current = frame.parentFrameId
  }
  return { x, y }
}

export interface Located {
  description: string
  x: number
  y: number
  rect: { x: number; y: number; width: number; height: number }
  coveredBy?: string
  frameId: number
}

/**
 * Scrolls an element (ref or selector; refs may name a frame) into view and returns its center in
 * top-level viewport coordinates, plus its page rect (for element screenshots) when it is in the top frame.
 */
export async function locateElement(
  tab: chrome.tabs.Tab,
  target: { ref?: string; selector?: string },
): Promise<Located> {
  const frameId = frameOfRef(target.ref)
  if (frameId !== 0) await frameOffset(tab, frameId, true)
  const where = await runInPage<Omit<Located, 'frameId'>>(tab, 'locate', target, frameId)
  if (frameId === 0) return { ...where, frameId }
  const offset = await frameOffset(tab, frameId, false)
  const [scroll] = await chrome.scripting.executeScript({
    target: { tabId: tab.id!, frameIds: [0] },
    func: () => ({ x: scrollX, y: scrollY }),
  })
  const page = scroll?.result ?? { x: 0, y: 0 }
  const { width, height } = where.rect
  return {
    ...where,
    x: where.x + offset.x,
    y: where.y + offset.y,
    // The element's box in the top page's coordinates (what a clip of Page.captureScreenshot takes).
    rect: {
      x: where.x - width / 2 + offset.x + page.x,
      y: where.y - height / 2 + offset.y + page.y,
      width,
      height,
    },
    frameId,
  }
}
