/** Page-side operations the service worker asks for by name (see ./index.ts). */
import { PageError } from './pageError'
import { querySelector, refFor, resolveTarget, type Target } from './refs'
import { collapse, describe, nameOf, roleOf } from './roles'
import { composedParent, shadowRootOf } from './snapshot'
import { truncate } from './truncate'

/** The element under a point, inside shadow roots (open or closed) too. */
function deepElementFromPoint(x: number, y: number): Element | null {
  let hit = document.elementFromPoint(x, y)
  for (let depth = 0; hit && depth < 20; depth++) {
    const shadow = shadowRootOf(hit)
    const inner = shadow?.elementFromPoint(x, y)
    if (!inner || inner === hit) break
    hit = inner
  }
  return hit
}

/** `outer.contains(inner)` across shadow boundaries. */
function composedContains(outer: Element, inner: Element): boolean {
  for (let el: Element | null = inner; el; el = composedParent(el)) if (el === outer) return true
  return false
}

/** Scrolls the element into view and reports where its center is, and what (if anything) covers it. */
export function locate(args: Target & { scroll?: boolean }) {
  const el = resolveTarget(args)!
  if (args.scroll !== false) el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' })
  const rect = el.getBoundingClientRect()
  if (!el.checkVisibility({ visibilityProperty: true }) || rect.width === 0 || rect.height === 0)
    throw new PageError(
      'not_found',
      el instanceof HTMLOptionElement
        ? `${describe(el)} is inside a closed <select>: choose it with browser_select_option`
        : `${describe(el)} is not visible on the page (hidden or zero size)`,
    )
  const x = rect.left + rect.width / 2
  const y = rect.top + rect.height / 2
  const hit = deepElementFromPoint(x, y)
  let coveredBy: string | undefined
  if (
    hit &&
    !composedContains(el, hit) &&
    !composedContains(hit, el) &&
    !(hit instanceof HTMLLabelElement && hit.control === el)
  )
    coveredBy = describe(hit)
  return {
    description: describe(el),
    x,
    y,
    rect: { x: rect.left + scrollX, y: rect.top + scrollY, width: rect.width, height: rect.height },
    coveredBy,
  }
}

export function text(args: Target & { maxLength: number; offset?: number }) {
  const el = resolveTarget(args, true)
  const raw = el ? ((el as HTMLElement).innerText ?? el.textContent ?? '') : (document.body?.innerText ?? '')
  const out = truncate(
    raw,
    args.maxLength,
    (n, total, next) =>
      `\n[truncated at maxLength: showing ${n} of ${total} characters; the rest: offset: ${next}; or pass ref or selector for one part of the page]`,
    args.offset,
  )
  return { text: out.text, length: out.length, truncated: out.truncated }
}

export function html(args: Target & { outer: boolean; maxLength: number }) {
  const el = resolveTarget(args, true) ?? document.documentElement
  const raw = args.outer ? el.outerHTML : el.innerHTML
  const out = truncate(
    raw,
    args.maxLength,
    (n, total) =>
      `\n<!-- truncated: showing ${n} of ${total} characters; pass ref or selector for one part of the page, or raise maxLength -->`,
  )
  return { html: out.text, length: out.length, truncated: out.truncated }
}

function isVisible(el: Element | null): boolean {
  if (!el) return false
  const rect = el.getBoundingClientRect()
  return el.checkVisibility({ visibilityProperty: true }) && rect.width > 0 && rect.height > 0
}

/** One evaluation of a browser_wait_for condition. */
export function check(args: {
  text?: string
  textGone?: string
  selector?: string
  state?: string
}): boolean {
  const pageText =
    args.text !== undefined || args.textGone !== undefined ? (document.body?.innerText ?? '') : ''
  if (args.text !== undefined && !pageText.includes(args.text)) return false
  if (args.textGone !== undefined && pageText.includes(args.textGone)) return false
  if (args.selector !== undefined) {
    const el = querySelector(args.selector)
    const state = args.state ?? 'visible'
    if (state === 'attached' && !el) return false
    if (state === 'detached' && el) return false
    if (state === 'visible' && !isVisible(el)) return false
    if (state === 'hidden' && isVisible(el)) return false
  }
  return true
}

function isEditable(el: Element): el is HTMLInputElement | HTMLTextAreaElement | HTMLElement {
  if (el instanceof HTMLTextAreaElement) return !el.disabled && !el.readOnly
  if (el instanceof HTMLInputElement)
    return (
      !el.disabled &&
      !el.readOnly &&
      ![
        'checkbox',
        'radio',
        'button',
        'submit',
        'reset',
        'image',
        'file',
        'range',
        'color',
        'hidden',
      ].includes(el.type)
    )
  return el instanceof HTMLElement && el.isContentEditable
}

/** Focuses an editable element and selects its content (to be replaced) or puts the caret at the end. */
export function focusEditable(args: Target & { clear: boolean }) {
  const el = resolveTarget(args)!
  if (el instanceof HTMLSelectElement)
    throw new PageError(
      'validation',
      `${describe(el)} is a <select>: choose an option with browser_select_option`,
    )
  if (!isEditable(el))
    throw new PageError(
      'validation',
      `${describe(el)} is not an editable field (or it is disabled or read-only)`,
    )
  el.scrollIntoView({ block: 'center', behavior: 'instant' })
  el.focus()
  if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement) {
    const end = el.value.length
    try {
      if (args.clear) el.select()
      else el.setSelectionRange(end, end)
    } catch {
      // email and number inputs have no selection API; select() on focus is enough for them
      if (args.clear) el.select()
    }
  } else {
    const range = document.createRange()
    range.selectNodeContents(el)
    if (!args.clear) range.collapse(false)
    const selection = getSelection()
    selection?.removeAllRanges()
    selection?.addRange(range)
  }
  return { description: describe(el), empty: valueText(el) === '' }
}

function valueText(el: Element): string {
  if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement || el instanceof HTMLSelectElement)
    return el.value
  return (el as HTMLElement).innerText ?? ''
}

/** The field's value after typing; password values never leave the page. */
export function value(args: Target) {
  const el = resolveTarget(args)!
  if (el instanceof HTMLInputElement && el.type === 'password') return { value: null, hidden: true }
  return { value: valueText(el) }
}

export function focusTarget(args: Target) {
  const el = resolveTarget(args)!
  if (el instanceof HTMLElement) el.focus()
  return { description: describe(el) }
}

export function activeElement() {
  const el = document.activeElement
  return { focused: el && el !== document.body ? describe(el) : null }
}

export function selectOption(args: Target & { values: string[] }) {
  const el = resolveTarget(args)!
  if (!(el instanceof HTMLSelectElement))
    throw new PageError('validation', `${describe(el)} is not a <select> element`)
  if (el.disabled) throw new PageError('validation', `${describe(el)} is disabled`)
  if (!el.multiple && args.values.length > 1)
    throw new PageError('validation', `${describe(el)} accepts one value, got ${args.values.length}`)
  const options = [...el.options]
  const chosen = args.values.map((v) => {
    const option =
      options.find((o) => o.value === v) ??
      options.find((o) => o.label.trim() === v.trim() || o.text.trim() === v.trim())
    if (!option) {
      const available = options
        .map((o) => JSON.stringify(o.label.trim() || o.value))
        .slice(0, 30)
        .join(', ')
      throw new PageError(
        'not_found',
        `no option ${JSON.stringify(v)} in ${describe(el)}; options: ${available}`,
      )
    }
    if (option.disabled) throw new PageError('validation', `option ${JSON.stringify(v)} is disabled`)
    return option
  })
  for (const option of options) option.selected = chosen.includes(option)
  el.dispatchEvent(new Event('input', { bubbles: true, composed: true }))
  el.dispatchEvent(new Event('change', { bubbles: true }))
  return { selected: chosen.map((o) => ({ value: o.value, label: o.label.trim() || o.text.trim() })) }
}

export function scroll(args: Target & { direction?: 'up' | 'down' | 'left' | 'right'; amount?: number }) {
  const el = resolveTarget(args, true)
  if (args.direction === undefined) {
    if (!el)
      throw new PageError('validation', 'give ref or selector to scroll to, or a direction to scroll by')
    el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' })
  } else {
    const scroller: Element | Window = el ?? window
    const vertical = args.direction === 'up' || args.direction === 'down'
    const size = el ? (vertical ? el.clientHeight : el.clientWidth) : vertical ? innerHeight : innerWidth
    const amount = args.amount ?? Math.max(1, Math.round(size * 0.8))
    const sign = args.direction === 'up' || args.direction === 'left' ? -1 : 1
    scroller.scrollBy({
      top: vertical ? sign * amount : 0,
      left: vertical ? 0 : sign * amount,
      behavior: 'instant',
    })
  }
  const root = document.scrollingElement ?? document.documentElement
  return {
    scrollX: Math.round(scrollX),
    scrollY: Math.round(scrollY),
    atTop: scrollY <= 0,
    atBottom: Math.ceil(scrollY + innerHeight) >= root.scrollHeight,
  }
}

const MAX_STORAGE_VALUE = 10_000

export function storage(args: { key?: string; storage: 'local' | 'session' }) {
  let store: Storage
  try {
    store = args.storage === 'session' ? sessionStorage : localStorage
  } catch {
    throw new PageError(
      'validation',
      `this page (${location.origin}) does not allow access to ${args.storage}Storage`,
    )
  }
  const cut = (v: string) =>
    truncate(v, MAX_STORAGE_VALUE, (n, total) => ` [truncated: showing ${n} of ${total} characters]`).text
  const items: Record<string, string | null> = {}
  if (args.key !== undefined) {
    const v = store.getItem(args.key)
    items[args.key] = v === null ? null : cut(v)
  } else {
    for (let i = 0; i < store.length; i++) {
      const key = store.key(i)
      if (key !== null) items[key] = cut(store.getItem(key) ?? '')
    }
  }
  return { origin: location.origin, storage: args.storage, count: store.length, items }
}

const frameElements = () => [...document.querySelectorAll<HTMLIFrameElement>('iframe, frame')]

/** The document's frames in order, with the URL each was given (to match them to Chrome's frame ids). */
export function frameList() {
  return frameElements().map((el) => ({
    src: el.hasAttribute('srcdoc') ? 'about:srcdoc' : el.src || 'about:blank',
  }))
}

/** Where a child frame's content box is in this document's viewport (scrolled into view first if asked). */
export function frameRect(args: { index: number; scroll?: boolean }) {
  const el = frameElements()[args.index]
  if (!el) throw new PageError('not_found', 'the frame is no longer on the page: take a new snapshot')
  if (args.scroll) el.scrollIntoView({ block: 'nearest', inline: 'nearest', behavior: 'instant' })
  const rect = el.getBoundingClientRect()
  const style = getComputedStyle(el)
  return {
    x: rect.left + el.clientLeft + parseFloat(style.paddingLeft),
    y: rect.top + el.clientTop + parseFloat(style.paddingTop),
  }
}

interface QueriedElement {
  ref: string
  tag: string
  role: string | null
  name: string | null
  text: string
  visible: boolean
  attributes?: Record<string, string | null>
}

/** The elements matching a selector, capped, with refs the other tools accept. */
export function query(args: { selector: string; attributes?: string[]; limit: number }) {
  let all: Element[]
  try {
    all = [...document.querySelectorAll(args.selector)]
  } catch {
    throw new PageError('validation', `invalid CSS selector: ${args.selector}`)
  }
  const elements = all.slice(0, args.limit).map((el) => {
    const role = roleOf(el)
    const text = collapse((el as HTMLElement).innerText ?? el.textContent ?? '')
    const out: QueriedElement = {
      ref: refFor(el),
      tag: el.tagName.toLowerCase(),
      role: role || null,
      name: role ? nameOf(el, role) || null : null,
      text: text.length > 200 ? `${text.slice(0, 199)}…` : text,
      visible: isVisible(el),
    }
    if (args.attributes?.length)
      out.attributes = Object.fromEntries(args.attributes.map((a) => [a, el.getAttribute(a)]))
    return out
  })
  return {
    total: all.length,
    elements,
    ...(all.length > args.limit
      ? { truncated: `showing ${args.limit} of ${all.length}: narrow the selector or raise limit` }
      : {}),
  }
}

const fire = (el: Element) => {
  el.dispatchEvent(new Event('input', { bubbles: true, composed: true }))
  el.dispatchEvent(new Event('change', { bubbles: true }))
}

/** Sets a value the way a page's own code sees a user's: through the native setter, then input and change. */
function setNativeValue(el: HTMLInputElement | HTMLTextAreaElement, v: string): void {
  const proto = el instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype
  Object.getOwnPropertyDescriptor(proto, 'value')?.set?.call(el, v)
  fire(el)
}

/** One field of browser_fill_form; checkboxes and radios are reported back for a trusted click. */
export function fillField(args: Target & { value: string | boolean | number }) {
  const el = controlOf(resolveTarget(args)!)
  const description = describe(el)
  if ((el as HTMLInputElement).disabled) throw new PageError('validation', `${description} is disabled`)
  if (el instanceof HTMLInputElement && (el.type === 'checkbox' || el.type === 'radio')) {
    const want = args.value === true || args.value === 'true' || args.value === 'on'
    return { field: description, value: want, toggle: el.checked !== want }
  }
  const text = String(args.value)
  if (el instanceof HTMLSelectElement) {
    const result = selectOption({ ...args, values: [text] })
    return { field: description, value: result.selected[0]?.label ?? text }
  }
  if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement) {
    if (el instanceof HTMLInputElement && el.type === 'file')
      throw new PageError('validation', `${description} is a file input: use browser_upload_file`)
    if (el.readOnly) throw new PageError('validation', `${description} is read-only`)
    el.focus()
    setNativeValue(el, text)
    return {
      field: description,
      value: el instanceof HTMLInputElement && el.type === 'password' ? '••••••' : el.value,
    }
  }
  if (el instanceof HTMLElement && el.isContentEditable) {
    el.focus()
    el.textContent = text
    el.dispatchEvent(new InputEvent('input', { bubbles: true, composed: true, inputType: 'insertText' }))
    return { field: description, value: el.innerText }
  }
  throw new PageError('validation', `${description} is not a form field`)
}

/** A label's ref names its control (a styled switch's label carries the ref for its hidden input). */
const controlOf = (el: Element): Element => (el instanceof HTMLLabelElement && el.control ? el.control : el)

/** The state of a checkbox or radio, for browser_set_checked. */
export function checkedState(args: Target) {
  const el = controlOf(resolveTarget(args)!)
  const checkable =
    el instanceof HTMLInputElement && (el.type === 'checkbox' || el.type === 'radio')
      ? el.checked
      : el.getAttribute('role') === 'checkbox' ||
          el.getAttribute('role') === 'radio' ||
          el.getAttribute('role') === 'switch'
        ? el.getAttribute('aria-checked') === 'true'
        : undefined
  if (checkable === undefined)
    throw new PageError('validation', `${describe(el)} is not a checkbox, radio or switch`)
  return { field: describe(el), checked: checkable }
}

export interface SentFile {
  name: string
  mimeType?: string
  base64: string
}

function toFiles(files: SentFile[]): File[] {
  return files.map((f) => {
    const bytes = Uint8Array.from(atob(f.base64), (c) => c.charCodeAt(0))
    return new File([bytes], f.name, { type: f.mimeType ?? 'application/octet-stream' })
  })
}

/** Answers an intercepted file chooser: the element Chrome named gets the files, then input and change. */
export function assignFiles(args: Target & { files: SentFile[] }) {
  const el = resolveTarget(args)!
  if (!(el instanceof HTMLInputElement) || el.type !== 'file')
    throw new PageError('validation', `${describe(el)} is not a file input`)
  const transfer = new DataTransfer()
  for (const file of toFiles(el.multiple ? args.files : args.files.slice(0, 1))) transfer.items.add(file)
  el.files = transfer.files
  fire(el)
  return { field: describe(el), files: [...el.files].map((f) => ({ name: f.name, size: f.size })) }
}

/** The file input itself when the target is one (no chooser needed), else null. */
export function fileInputRef(args: Target) {
  const el = resolveTarget(args)!
  return el instanceof HTMLInputElement && el.type === 'file' ? refFor(el) : null
}

/** Tags the element under a point so the service worker can address it by ref (chooser answers). */
export function refAtPoint(args: { x: number; y: number }) {
  const el = document.elementFromPoint(args.x, args.y)
  return el ? { ref: refFor(el), description: describe(el) } : null
}

/** A drop from outside the page: files and typed data in a DataTransfer, through dragenter, dragover, drop. */
export function dropOn(args: Target & { files?: SentFile[]; data?: Record<string, string> }) {
  const el = resolveTarget(args)!
  el.scrollIntoView({ block: 'center', behavior: 'instant' })
  const rect = el.getBoundingClientRect()
  const transfer = new DataTransfer()
  for (const [type, value] of Object.entries(args.data ?? {})) transfer.setData(type, value)
  for (const file of toFiles(args.files ?? [])) transfer.items.add(file)
  const init = {
    bubbles: true,
    cancelable: true,
    composed: true,
    dataTransfer: transfer,
    clientX: rect.left + rect.width / 2,
    clientY: rect.top + rect.height / 2,
  }
  el.dispatchEvent(new DragEvent('dragenter', init))
  el.dispatchEvent(new DragEvent('dragover', init))
  const accepted = !el.dispatchEvent(new DragEvent('drop', init))
  return {
    droppedOn: describe(el),
    files: (args.files ?? []).map((f) => f.name),
    types: Object.keys(args.data ?? {}),
    handled: accepted,
  }
}

export function storageWrite(args: {
  storage: 'local' | 'session'
  action: 'set' | 'remove' | 'clear'
  key?: string
  value?: string
  /** The origin the tab showed when the call chose it: a document of another origin is not written. */
  origin?: string
}) {
  if (args.origin !== undefined && location.origin !== args.origin)
    throw new PageError(
      'validation',
      `the tab now shows ${location.origin}, not ${args.origin}: nothing was written (look at the tab again)`,
    )
  let store: Storage
  try {
    store = args.storage === 'session' ? sessionStorage : localStorage
  } catch {
    throw new PageError(
      'validation',
      `this page (${location.origin}) does not allow access to ${args.storage}Storage`,
    )
  }
  const base = { origin: location.origin, storage: args.storage }
  if (args.action === 'clear') {
    const removed = store.length
    store.clear()
    return { ...base, removed }
  }
  const key = args.key ?? ''
  if (args.action === 'remove') {
    const existed = store.getItem(key) !== null
    store.removeItem(key)
    return { ...base, key, existed, count: store.length }
  }
  try {
    store.setItem(key, args.value ?? '')
  } catch (err) {
    throw new PageError('validation', `the page's ${args.storage}Storage refused the item: ${String(err)}`)
  }
  return { ...base, key, count: store.length }
}

export function describeAt(args: { x: number; y: number }) {
  const el = document.elementFromPoint(args.x, args.y)
  return { target: el ? describe(el) : null }
}

let documentId: string | undefined
let lastMutation = performance.now()
let observer: MutationObserver | undefined
/** When each node last changed (its last three changes, one per observer callback). */
const changeTimes = new WeakMap<Node, number[]>()
/** A node changed three times within this is ticking on its own (a clock, a spinner). */
const TICKING_MS = 2_000

/** Whether this change is one more tick of a node that keeps changing by itself; records it either way. */
function isTick(node: Node, now: number): boolean {
  const times = changeTimes.get(node) ?? []
  if (times.length && now - times.at(-1)! < 30) return times.length >= 3 && now - times[0]! < TICKING_MS
  times.push(now)
  if (times.length > 3) times.shift()
  changeTimes.set(node, times)
  return times.length >= 3 && now - times[0]! < TICKING_MS
}

/**
 * Who this document is (a new id after a navigation) and how long its DOM has been still, for an action
 * to wait until the page it changed settles. The observer starts on the first call, before the action;
 * a node that keeps changing by itself (a clock) does not count as a change. What happened before the
 * observer started is not known: the page counts as still for `assumeStillMs` then, so a page still
 * rendering after its load is seen changing before it is taken as settled.
 */
export function pageState(args: { assumeStillMs?: number } = {}) {
  documentId ??= Math.random().toString(36).slice(2)
  if (!observer) {
    observer = new MutationObserver((records) => {
      const now = performance.now()
      for (const record of records) {
        const node =
          record.type === 'characterData' ? (record.target.parentNode ?? record.target) : record.target
        if (!isTick(node, now)) lastMutation = now
      }
    })
    observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true })
    lastMutation = args.assumeStillMs === undefined ? 0 : performance.now() - args.assumeStillMs
  }
  return {
    documentId,
    url: location.href,
    quietMs: Math.round(performance.now() - lastMutation),
    loading: document.readyState === 'loading',
  }
}

/** The ref of the element a selector (or ref) names: an action leaves the field it set out of its diff. */
export function refOfTarget(args: Target) {
  return refFor(resolveTarget(args)!)
}
