/**
 * Element refs (`e12`) handed out by snapshots. They live in the extension's isolated world of the
 * page, so the page itself can neither see nor forge them, and they vanish when the document does.
 * An element keeps its ref across snapshots.
 */
import { PageError } from './pageError'

const byRef = new Map<string, WeakRef<Element>>()
const refOf = new WeakMap<Element, string>()
let counter = 0
/** `f<frameId>` in a child frame, so a ref names its frame: the service worker routes calls by it. */
let prefix = ''

export function setFramePrefix(frameId: number): void {
  prefix = frameId ? `f${frameId}` : ''
}

export function refFor(el: Element): string {
  let ref = refOf.get(el)
  if (!ref) {
    ref = `${prefix}e${++counter}`
    refOf.set(el, ref)
    byRef.set(ref, new WeakRef(el))
  }
  return ref
}

export interface Target {
  ref?: string
  selector?: string
}

function querySelector(selector: string): Element | null {
  try {
    return document.querySelector(selector)
  } catch {
    throw new PageError('validation', `invalid CSS selector: ${selector}`)
  }
}

/** The element a tool acts on; `optional` allows neither ref nor selector (then null: the page). */
export function resolveTarget(target: Target, optional = false): Element | null {
  if (target.ref !== undefined && target.selector !== undefined)
    throw new PageError('validation', 'give either ref or selector, not both')
  if (target.ref !== undefined) {
    const el = byRef.get(target.ref)?.deref()
    if (!el || !el.isConnected)
      throw new PageError(
        'not_found',
        `no element for ref ${target.ref} on this page: take a new browser_snapshot (refs expire when the page changes or navigates)`,
      )
    return el
  }
  if (target.selector !== undefined) {
    const el = querySelector(target.selector)
    if (!el) throw new PageError('not_found', `no element matches the selector ${target.selector}`)
    return el
  }
  if (optional) return null
  throw new PageError('validation', 'give ref (from browser_snapshot) or selector to choose the element')
}

export { querySelector }
