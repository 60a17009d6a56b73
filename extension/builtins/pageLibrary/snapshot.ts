/**
 * The page as an indented outline of roles and names with element refs, e.g.
 *   - navigation "Main":
 *     - link "Home" [ref=e2] -> /
 *   - textbox "Email" [ref=e3]: ada@example.com
 * Generic containers (div, span) are flattened; their text becomes `- text:` lines.
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
const MAX_OPTIONS = 100

const clip = (text: string): string =>
  text.length > MAX_TEXT_CHARS ? `${text.slice(0, MAX_TEXT_CHARS - 1)}…` : text
const quote = (text: string): string => JSON.stringify(text)

function childNodesOf(el: Element): Node[] {
  const shadow = chrome.dom?.openOrClosedShadowRoot?.(el as HTMLElement) ?? el.shadowRoot
  if (shadow) return [...shadow.childNodes]
  if (el instanceof HTMLSlotElement) {
    const assigned = el.assignedNodes({ flatten: true })
    if (assigned.length) return assigned
  }
  return [...el.childNodes]
}

/** Elements with a pointer cursor (or a click handler attribute) that no role describes. */
function isClickableGeneric(el: Element, style: CSSStyleDeclaration): boolean {
  if (!(el instanceof HTMLElement)) return false
  if (el.hasAttribute('onclick') || (el.hasAttribute('tabindex') && el.tabIndex >= 0)) return true
  if (style.cursor !== 'pointer') return false
  const parent = el.parentElement
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

class Outline {
  lines: string[] = []
  refCount = 0
  /** Elements left out below maxDepth. */
  deeper = 0
  private chars = 0

  /** The walk stops once the outline is longer than the budget: huge pages cost no more than needed. */
  constructor(
    private readonly budget: number,
    private readonly maxDepth = Infinity,
  ) {}

  get full(): boolean {
    return this.chars > this.budget
  }

  private push(line: string): void {
    this.lines.push(line)
    this.chars += line.length + 1
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
    this.push(`${'  '.repeat(this.pendingDepth)}- text: ${clip(this.pending.join(' '))}`)
    this.pending = []
  }

  element(el: Element, depth: number): void {
    if (this.full) return
    if (SKIP_TAGS.has(el.tagName) || el.getAttribute('aria-hidden') === 'true') return
    if (!el.checkVisibility()) return
    const style = getComputedStyle(el)
    const shown = style.visibility !== 'hidden' && style.visibility !== 'collapse'
    let role = shown ? roleOf(el) : ''
    if (shown && !role && isClickableGeneric(el, style)) role = 'clickable'
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
    let line = `${'  '.repeat(depth)}- ${role}${name ? ` ${quote(name)}` : ''}`
    for (const state of stateOf(el, role)) line += ` [${state}]`
    line += ` [ref=${refFor(el)}]`
    this.refCount++
    if (role === 'link') {
      const href = el.getAttribute('href')
      if (href && !href.startsWith('javascript:')) line += ` -> ${clip(href)}`
    }
    const value = valueOf(el, role)
    // Multi-line values (textareas) stay on their line.
    if (value !== undefined) line += `: ${clip(value.replace(/\r?\n/g, '\\n'))}`
    this.push(line)
    if (el instanceof HTMLIFrameElement || el instanceof HTMLFrameElement) {
      // The frame's own document is outlined by the service worker, in that frame, under this line;
      // the mark names the frame by its position among the document's frames (see frames.ts).
      const index = [...document.querySelectorAll('iframe, frame')].indexOf(el)
      this.lines[this.lines.length - 1] += ':'
      this.push(`${'  '.repeat(depth + 1)}${FRAME_MARK}${index}`)
      return
    }
    if (el instanceof HTMLSelectElement) {
      // Options of a closed select are not rendered, so they are listed without a visibility check.
      for (const option of [...el.options].slice(0, MAX_OPTIONS)) {
        const states = stateOf(option, 'option')
          .map((st) => ` [${st}]`)
          .join('')
        this.push(
          `${'  '.repeat(depth + 1)}- option ${quote(collapse(option.label || option.text))}${states} [ref=${refFor(option)}]`,
        )
      }
      if (el.options.length > MAX_OPTIONS)
        this.push(`${'  '.repeat(depth + 1)}- text: (${el.options.length - MAX_OPTIONS} more options)`)
      return
    }
    if (leaf) return
    const at = this.lines.length
    for (const child of childNodesOf(el)) this.node(child, depth + 1, shown)
    this.flush()
    if (this.lines.length > at) this.lines[at - 1] += ':'
    this.chars += 1
    // A container holding only text reads better on one line: `- listitem: Buy milk`.
    const only = this.lines.length === at + 1 ? this.lines[at] : undefined
    const prefix = `${'  '.repeat(depth + 1)}- text: `
    if (only?.startsWith(prefix)) {
      this.lines.pop()
      this.lines[at - 1] = `${line}: ${only.slice(prefix.length)}`
    }
  }

  /** `shown`: whether the parent element is visible; text inherits it, elements decide for themselves. */
  node(node: Node, depth: number, shown: boolean): void {
    if (node.nodeType === Node.TEXT_NODE) {
      if (shown) this.text(node.textContent ?? '', depth)
    } else if (node.nodeType === Node.ELEMENT_NODE) this.element(node as Element, depth)
  }
}

export function snapshot(args: { selector?: string; maxLength: number; depth?: number }): {
  text: string
  refs: number
  truncated: boolean
} {
  const root =
    args.selector !== undefined ? querySelector(args.selector) : (document.body ?? document.documentElement)
  if (!root) throw new PageError('not_found', `no element matches the selector ${args.selector ?? ''}`)
  const outline = new Outline(args.maxLength, args.depth)
  outline.element(root, 0)
  outline.flush()
  if (outline.deeper)
    outline.lines.push(
      `[${outline.deeper} elements deeper than depth ${args.depth} left out: raise depth or pass selector]`,
    )
  const header = `URL: ${location.href}\nTitle: ${document.title}\n`
  const text = header + (outline.lines.join('\n') || '(no visible content)')
  if (text.length <= args.maxLength && !outline.full)
    return { text, refs: outline.refCount, truncated: false }
  const cut = text.lastIndexOf('\n', args.maxLength)
  const kept = text.slice(0, cut > header.length ? cut : args.maxLength)
  return {
    text: `${kept}\n[truncated: showing ${kept.length} characters, the page has more; pass selector to snapshot one part of the page, depth to leave out nesting, or use browser_find]`,
    refs: outline.refCount,
    truncated: true,
  }
}
