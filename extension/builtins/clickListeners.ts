/**
 * Elements with click or pointer handlers of their own, as the DevTools protocol sees them
 * (`addEventListener`, `onclick` properties and attributes, in the page's own world), for snapshots of
 * a tab that bridge's debugger session is attached to already (during and just after an action): the
 * page library cannot see a page script's listeners. Never attaches for this alone.
 *
 * Elements are named to the page library by their path (element indexes from the document, `s` to
 * enter a shadow root), so nothing is written into the page. A listener on a container of many
 * elements (an app's root, a list that delegates its items' clicks) marks no target: the click is
 * meant for something inside it. Pages of more than 3,000 elements are not read (the whole tree is).
 */
import { debuggerSessions, withDebugger, type Cdp } from './debuggerSession'

const CLICK_EVENTS = new Set(['click', 'mousedown', 'mouseup', 'pointerdown', 'pointerup', 'dblclick'])
/** A listener on an element with more elements than this inside is a delegating container. */
const MAX_TARGET_ELEMENTS = 30
const ELEMENT_NODE = 1
/** Pages with more elements than this are not read for listeners (the cost grows with the page). */
const MAX_PAGE_ELEMENTS = 3_000

interface DomNode {
  nodeType: number
  nodeName: string
  backendNodeId: number
  children?: DomNode[]
  shadowRoots?: (DomNode & { shadowRootType?: string })[]
}

/** Paths of the targets among `wanted`, from the document's tree; returns the subtree's element count. */
function walk(node: DomNode, path: string, wanted: Set<number>, out: string[]): number {
  let count = 1
  const shadows = (node.shadowRoots ?? []).filter((s) => s.shadowRootType !== 'user-agent')
  for (const shadow of shadows.slice(0, 1)) {
    let i = 0
    for (const child of shadow.children ?? [])
      if (child.nodeType === ELEMENT_NODE) count += walk(child, `${path}.s${i++}`, wanted, out)
  }
  let i = 0
  for (const child of node.children ?? [])
    if (child.nodeType === ELEMENT_NODE) count += walk(child, `${path}.${i++}`, wanted, out)
  if (
    wanted.has(node.backendNodeId) &&
    count <= MAX_TARGET_ELEMENTS &&
    node.nodeName !== 'HTML' &&
    node.nodeName !== 'BODY'
  )
    out.push(path)
  return count
}

async function listenerPaths(cdp: Cdp): Promise<string[]> {
  // The document's whole tree is read to name the elements: a big page costs more than it gives. One
  // round trip: the document itself when it is small enough, else null.
  const doc = await cdp.send<{ result: { objectId?: string } }>('Runtime.evaluate', {
    expression: `document.getElementsByTagName('*').length <= ${MAX_PAGE_ELEMENTS} ? document : null`,
  })
  const objectId = doc.result.objectId
  if (!objectId) return []
  let read = false
  try {
    const { listeners } = await cdp.send<{ listeners: { type: string; backendNodeId?: number }[] }>(
      'DOMDebugger.getEventListeners',
      { objectId, depth: -1, pierce: true },
    )
    const wanted = new Set(
      listeners.filter((l) => CLICK_EVENTS.has(l.type) && l.backendNodeId).map((l) => l.backendNodeId!),
    )
    if (!wanted.size) return []
    read = true
    const { root } = await cdp.send<{ root: DomNode }>('DOM.getDocument', { depth: -1, pierce: true })
    const out: string[] = []
    let i = 0
    for (const child of root.children ?? [])
      if (child.nodeType === ELEMENT_NODE) walk(child, `${i++}`, wanted, out)
    return out
  } finally {
    // Neither answer is needed: the session's commands run in order, so nothing sent later overtakes them.
    void cdp.send('Runtime.releaseObject', { objectId }).catch(() => undefined)
    // DOM.getDocument turned the DOM domain on (its events would follow every change of the page).
    if (read) void cdp.send('DOM.disable').catch(() => undefined)
  }
}

/** The paths of the tab's elements with click handlers, when a debugger session is attached; else none. */
export async function clickListenerPaths(tab: chrome.tabs.Tab): Promise<string[] | undefined> {
  const tabId = tab.id
  if (tabId === undefined || !debuggerSessions().some((s) => s.tabId === tabId && !s.dialogOpen))
    return undefined
  return withDebugger(tabId, tab.url, listenerPaths).catch(() => undefined)
}
