/**
 * The page as a compact outline of roles and names, e.g.
 *   - navigation "Main":
 *    - link "Home" [ref=e2] -> /
 *   - textbox "Email" [ref=e3]: ada@example.com
 *   - row: #0347 | Grace Hopper | 249.00 | button "Ship" [ref=e9]
 * One space of indentation per level. Refs only on what an agent can act on (controls, links,
 * focusable elements, frames, and anything a person can click whatever its role: a clickable row's
 * ref is on its row line, its cells get none). Generic containers and paragraphs are flattened into
 * `- text:` lines; a row or list item whose content fits on a line is written on one line.
 */
import { PageError } from './pageError'
import { querySelector, refFor } from './refs'
import { collapse, explicitNameOf, nameOf, roleOf } from './roles'

const SKIP_TAGS = new Set([
  'SCRIPT',
  'STYLE',
  'NOSCRIPT',
  'TEMPLATE',
  'HEAD',
  'META',
  'LINK',
  'TITLE',
  'BASE',
])
/** Roles shown as one line; their content is their name. */
const LEAF_ROLES = new Set([
  'button',
  'link',
  'heading',
  'textbox',
  'searchbox',
  'checkbox',
  'radio',
  'switch',
  'img',
  'slider',
  'spinbutton',
  'progressbar',
  'meter',
  'separator',
  'iframe',
  'option',
  'menuitem',
  'menuitemcheckbox',
  'menuitemradio',
  'tab',
  'clickable',
])
const VALUE_ROLES = new Set(['textbox', 'searchbox', 'spinbutton', 'slider', 'combobox'])
const MAX_TEXT_CHARS = 300

const clip = (text: string): string =>
  text.length > MAX_TEXT_CHARS ? `${text.slice(0, MAX_TEXT_CHARS - 1)}…` : text
const quote = (text: string): string => JSON.stringify(text)

/** An element's shadow root, closed ones too (only HTML elements can host one). */
export function shadowRootOf(el: Element): ShadowRoot | null {
  if (!(el instanceof HTMLElement)) return null
  return chrome.dom?.openOrClosedShadowRoot?.(el) ?? el.shadowRoot
}

function childNodesOf(el: Element): Node[] {
  const shadow = shadowRootOf(el)
  if (shadow) return [...shadow.childNodes]
  if (el instanceof HTMLSlotElement) {
    const assigned = el.assignedNodes({ flatten: true })
    if (assigned.length) return assigned
  }
  return [...el.childNodes]
}

/** The element's parent across a shadow boundary: a shadow root's top element has its host. */
export function composedParent(el: Element): Element | null {
  if (el.parentElement) return el.parentElement
  const root = el.getRootNode()
  return root instanceof ShadowRoot ? root.host : null
}

/** Whether an element takes part in layout and can be hit (a hidden input styled away does not). */
function isRendered(el: Element): boolean {
  if (!el.checkVisibility({ opacityProperty: true, visibilityProperty: true })) return false
  const rect = el.getBoundingClientRect()
  return rect.width > 1 && rect.height > 1
}

const CONTROLS = 'a[href], button, input, select, textarea, [role], [tabindex], [onclick], [contenteditable]'

/**
 * Whether an element with a click listener holds other things to click (controls, elements with a
 * pointer cursor of their own, other listeners): then it delegates their clicks and is no target.
 */
function holdsClickTargets(el: Element, style: CSSStyleDeclaration, listened: Set<Element>): boolean {
  if (el.querySelector(CONTROLS)) return true
  for (const inner of el.querySelectorAll('*')) {
    if (listened.has(inner)) return true
    if (style.cursor !== 'pointer' && getComputedStyle(inner).cursor === 'pointer') return true
  }
  return false
}

/**
 * Whether a person can click the element, whatever its role: a click handler attribute, the top of a
 * pointer-cursor region (its children inherit the cursor, so a row's cells are not targets of their
 * own), or a label that stands in for a control that is not rendered (a styled switch). A label of a
 * rendered control is not: the control carries the ref.
 */
function isClickTarget(el: Element, style: CSSStyleDeclaration, listened: Set<Element>): boolean {
  if (!(el instanceof HTMLElement || el instanceof SVGElement)) return false
  if (el instanceof HTMLLabelElement && el.control) return !isRendered(el.control)
  if (el.hasAttribute('onclick')) return true
  if (listened.has(el) && !holdsClickTargets(el, style, listened)) return true
  if (style.cursor !== 'pointer') return false
  const parent = composedParent(el)
  return !parent || getComputedStyle(parent).cursor !== 'pointer'
}

function stateOf(el: Element, role: string): string[] {
  const out: string[] = []
  if (role === 'heading') {
    const level = el.getAttribute('aria-level') ?? /^H([1-6])$/.exec(el.tagName)?.[1] ?? ''
    if (level) out.push(`level=${level}`)
  }
  if (el instanceof HTMLInputElement && (el.type === 'checkbox' || el.type === 'radio')) {
    if (el.indeterminate) out.push('mixed')
    else if (el.checked) out.push('checked')
  } else if (el.getAttribute('aria-checked') === 'true') out.push('checked')
  if (el instanceof HTMLOptionElement ? el.selected : el.getAttribute('aria-selected') === 'true')
    out.push('selected')
  const expanded = el.getAttribute('aria-expanded')
  if (expanded === 'true') out.push('expanded')
  if (expanded === 'false') out.push('collapsed')
  if (el instanceof HTMLDetailsElement) out.push(el.open ? 'expanded' : 'collapsed')
  if (el.getAttribute('aria-pressed') === 'true') out.push('pressed')
  if ((el as HTMLButtonElement).disabled === true || el.getAttribute('aria-disabled') === 'true')
    out.push('disabled')
  if ((el as HTMLInputElement).required === true) out.push('required')
  if ((el as HTMLInputElement).readOnly === true && role !== 'button') out.push('readonly')
  if (el === document.activeElement && el !== document.body) out.push('focused')
  return out
}

function valueOf(el: Element, role: string): string | undefined {
  if (el instanceof HTMLSelectElement) {
    const labels = [...el.selectedOptions].map((o) => collapse(o.label || o.text))
    return labels.length ? labels.join(', ') : undefined
  }
  if (!VALUE_ROLES.has(role)) return undefined
  if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement) {
    if (!el.value) return undefined
    return el instanceof HTMLInputElement && el.type === 'password' ? '••••••' : el.value
  }
  if (el instanceof HTMLElement && el.isContentEditable) return collapse(el.innerText) || undefined
  return el.getAttribute('aria-valuenow') ?? undefined
}

/** Marks where a child frame's outline goes; the service worker replaces it (see frames.ts). */
export const FRAME_MARK = '\u0001frame '

/** Roles an agent acts on: they carry a ref. Any focusable or clickable element does too. */
const ACTION_ROLES = new Set([
  'button',
  'link',
  'textbox',
  'searchbox',
  'checkbox',
  'radio',
  'switch',
  'slider',
  'spinbutton',
  'combobox',
  'listbox',
  'option',
  'menuitem',
  'menuitemcheckbox',
  'menuitemradio',
  'tab',
  'treeitem',
  'clickable',
  'iframe',
  'gridcell',
])
/** Roles written as text: their content is what matters. */
const FLAT_ROLES = new Set(['paragraph', 'generic', 'term', 'definition'])
/** What a table row's line puts between its cells. */
export const ROW_JOIN = ' | '
/** Containers whose children, when each fits on a line, are joined into the container's line. */
const JOIN = new Map([
  ['row', ROW_JOIN],
  ['listitem', ' '],
])
/** Child prefixes dropped when a child is joined into its parent's line. */
const INLINE_PREFIX = /^- (?:text|cell|columnheader|rowheader|gridcell): ?/
const MAX_JOINED_CHARS = 600
const MAX_OPTIONS = 30

function isFocusable(el: Element): boolean {
  return (
    el instanceof HTMLElement &&
    ((el.hasAttribute('tabindex') && el.tabIndex >= 0) ||
      (el.isContentEditable && !el.parentElement?.isContentEditable))
  )
}

interface Line {
  depth: number
  text: string
}

class Outline {
  lines: Line[] = []
  refCount = 0
  /** Elements left out below maxDepth. */
  deeper = 0
  private chars = 0

  /** The walk stops once the outline is past `walkLimit` characters: huge pages cost no more than needed. */
  constructor(
    private readonly walkLimit: number,
    private readonly maxDepth = Infinity,
    /** Elements the DevTools protocol saw click handlers on (see clickListeners.ts). */
    private readonly listened = new Set<Element>(),
  ) {}

  get stopped(): boolean {
    return this.chars > this.walkLimit
  }

  private push(depth: number, text: string): void {
    this.lines.push({ depth, text })
    this.chars += depth + text.length + 1
  }
  private pending: string[] = []
  private pendingDepth = 0

  text(raw: string, depth: number): void {
    const text = collapse(raw)
    if (!text) return
    if (this.pending.length && this.pendingDepth !== depth) this.flush()
    this.pending.push(text)
    this.pendingDepth = depth
  }

  flush(): void {
    if (!this.pending.length) return
    this.push(this.pendingDepth, `- text: ${clip(this.pending.join(' '))}`)
    this.pending = []
  }

  element(el: Element, depth: number): void {
    if (this.stopped) return
    if (SKIP_TAGS.has(el.tagName) || el.getAttribute('aria-hidden') === 'true') return
    if (!el.checkVisibility()) return
    const style = getComputedStyle(el)
    const shown = style.visibility !== 'hidden' && style.visibility !== 'collapse'
    let role = shown ? roleOf(el) : ''
    const focusable = shown && isFocusable(el)
    const clickable = shown && !ACTION_ROLES.has(role) && isClickTarget(el, style, this.listened)
    // A label standing in for its hidden control reads as that control (`- checkbox "Dark mode"`).
    const stateEl = el instanceof HTMLLabelElement && clickable && el.control ? el.control : el
    if (stateEl !== el) role = roleOf(stateEl) || 'clickable'
    else if (clickable && (!role || FLAT_ROLES.has(role))) role = 'clickable'
    else if (FLAT_ROLES.has(role) && !focusable && !explicitNameOf(el)) role = ''
    const block = !style.display.startsWith('inline') && style.display !== 'contents'

    if (!role) {
      if (block) this.flush()
      // A label's text is already the name of its control.
      const labelsControl = el instanceof HTMLLabelElement && el.control !== null
      for (const child of childNodesOf(el))
        if (!(labelsControl && child.nodeType === Node.TEXT_NODE)) this.node(child, depth, shown)
      if (block) this.flush()
      return
    }
    this.flush()
    if (depth > this.maxDepth) {
      this.deeper++
      return
    }
    const leaf =
      LEAF_ROLES.has(role) &&
      !(role === 'clickable' && el.querySelector('a, button, input, select, textarea, [role], [tabindex]'))
    const control =
      el instanceof HTMLInputElement || el instanceof HTMLSelectElement || el instanceof HTMLTextAreaElement
    const name = leaf || control ? nameOf(el, role === 'clickable' ? 'button' : role) : explicitNameOf(el)
    let line = `- ${role}${name ? ` ${quote(name)}` : ''}`
    for (const state of stateOf(stateEl, role)) line += ` [${state}]`
    if (ACTION_ROLES.has(role) || focusable || clickable) {
      line += ` [ref=${refFor(el)}]`
      this.refCount++
    }
    if (role === 'link') {
      const href = el.getAttribute('href')
      if (href && !href.startsWith('javascript:')) line += ` -> ${clip(href)}`
    }
    const value = valueOf(el, role)
    // Multi-line values (textareas) stay on their line.
    if (value !== undefined) line += `: ${clip(value.replace(/\r?\n/g, '\\n'))}`
    if (el instanceof HTMLSelectElement) {
      // Options of a closed select are not rendered, so they are listed without a visibility check.
      const labels = [...el.options].map((o) => collapse(o.label || o.text))
      const shownLabels = labels.slice(0, MAX_OPTIONS).join(' | ')
      const more = labels.length > MAX_OPTIONS ? ` | (${labels.length - MAX_OPTIONS} more)` : ''
      this.push(depth, `${line} [options: ${shownLabels}${more}]`)
      return
    }
    if (el instanceof HTMLIFrameElement || el instanceof HTMLFrameElement) {
      // The frame's own document is outlined by the service worker, in that frame, under this line;
      // the mark names the frame by its position among the document's frames (see frames.ts).
      const index = [...document.querySelectorAll('iframe, frame')].indexOf(el)
      this.push(depth, `${line}:`)
      this.push(depth + 1, `${FRAME_MARK}${index}`)
      return
    }
    this.push(depth, line)
    if (leaf) return
    const at = this.lines.length
    for (const child of childNodesOf(el)) this.node(child, depth + 1, shown)
    this.flush()
    this.fold(at - 1, role)
  }

  /**
   * After a container's children: one child goes on the container's line (`- listitem: Buy milk`); a
   * row's or list item's children that each fit on a line are joined there; an empty container without
   * ref or name is dropped (an empty cell stays: it keeps the columns in place).
   */
  private fold(at: number, role: string): void {
    const parent = this.lines[at]!
    const children = this.lines.slice(at + 1)
    const flat = children.every((c) => c.depth === parent.depth + 1 && !c.text.includes(FRAME_MARK))
    if (!children.length) {
      // Nothing to act on, no name, no state: it says nothing.
      if (!parent.text.includes('[') && !parent.text.includes('"') && role !== 'cell') {
        this.lines.pop()
        this.chars -= parent.depth + parent.text.length + 1
      }
      return
    }
    const joiner = JOIN.get(role)
    if (flat && (children.length === 1 || joiner)) {
      const joined = children
        .map((c) => c.text.replace(INLINE_PREFIX, '').replace(/^- /, ''))
        .join(joiner ?? ' ')
      if (joined.length <= MAX_JOINED_CHARS) {
        this.lines.length = at
        const text = `${parent.text}: ${joined}`
        this.lines.push({ depth: parent.depth, text })
        return
      }
    }
    parent.text += ':'
    this.chars += 1
  }

  /** `shown`: whether the parent element is visible; text inherits it, elements decide for themselves. */
  node(node: Node, depth: number, shown: boolean): void {
    if (node.nodeType === Node.TEXT_NODE) {
      if (shown) this.text(node.textContent ?? '', depth)
    } else if (node.nodeType === Node.ELEMENT_NODE) this.element(node as Element, depth)
  }

  render(): string[] {
    return this.lines.map((l) => ' '.repeat(l.depth) + l.text)
  }
}

/**
 * The outline of this document (its frames as marks). Not cut here: the service worker cuts the
 * whole text, frames included, at the call's budget (see frames.ts). `walkLimit` only stops the walk
 * of a huge page; `complete` says whether it did.
 */
/** Elements by their paths from the document (element indexes, `s<i>` into a shadow root). */
function elementsAt(paths: string[]): Set<Element> {
  const out = new Set<Element>()
  for (const path of paths.slice(0, 5_000)) {
    let parent: ParentNode | null = document
    let el: Element | undefined
    for (const step of path.split('.')) {
      if (!parent) break
      if (step.startsWith('s')) {
        const shadow: ShadowRoot | null = el ? shadowRootOf(el) : null
        el = shadow?.children[Number(step.slice(1))]
      } else el = parent.children[Number(step)]
      parent = el ?? null
    }
    if (el && parent) out.add(el)
  }
  return out
}

export function snapshot(args: {
  selector?: string
  walkLimit: number
  depth?: number
  clickPaths?: string[]
}): {
  text: string
  refs: number
  complete: boolean
} {
  const root =
    args.selector !== undefined ? querySelector(args.selector) : (document.body ?? document.documentElement)
  if (!root) throw new PageError('not_found', `no element matches the selector ${args.selector ?? ''}`)
  const outline = new Outline(args.walkLimit, args.depth, elementsAt(args.clickPaths ?? []))
  outline.element(root, 0)
  outline.flush()
  const lines = outline.render()
  if (outline.deeper)
    lines.push(
      `[${outline.deeper} elements deeper than depth ${args.depth} left out: raise depth or pass selector]`,
    )
  const header = `URL: ${location.href}\nTitle: ${document.title}\n`
  return {
    text: header + (lines.join('\n') || '(no visible content)'),
    refs: outline.refCount,
    complete: !outline.stopped,
  }
}
