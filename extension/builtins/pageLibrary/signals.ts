/**
 * Workflows in the page: an element's target signals as a recording keeps them, the ladder that finds
 * it again from them (docs/workflows.md), a step's post-condition checked against the page, and the
 * region around a step's target for a stop report.
 */
import { LADDER, type PostCondition, type Signal, type Target } from '../../../src/protocol/workflow'
import { PageError } from './pageError'
import { refFor, resolveTarget } from './refs'
import { collapse, describe, nameOf, roleOf } from './roles'
import { ROW_JOIN } from './snapshot'

const TEST_ATTRS = ['data-testid', 'data-test-id', 'data-test', 'data-qa', 'data-cy']
const MAX = 300

const clip = (s: string) => (s.length > MAX ? s.slice(0, MAX) : s)
const isField = (el: Element) =>
  el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement || el instanceof HTMLSelectElement

function visible(el: Element): boolean {
  const rect = el.getBoundingClientRect()
  return el.checkVisibility({ visibilityProperty: true }) && rect.width > 0 && rect.height > 0
}

function testIdOf(el: Element): string | undefined {
  for (const attr of TEST_ATTRS) {
    const value = el.getAttribute(attr)
    if (value) return value
  }
  return undefined
}

function labelOf(el: Element): string | undefined {
  if (!isField(el)) return undefined
  const field = el as HTMLInputElement
  const label = field.labels?.[0]
  const text = label ? collapse(label.innerText) : ''
  return text || el.getAttribute('aria-label') || field.placeholder || undefined
}

function textOf(el: Element): string | undefined {
  if (isField(el)) return undefined
  const text = collapse((el as HTMLElement).innerText ?? '')
  return text && text.length <= 120 ? text : undefined
}

const plainId = (id: string) => /^[A-Za-z][\w-]{0,63}$/.test(id) && !/\d{4,}/.test(id)

/** A CSS path: from the nearest ancestor with a plain unique id, tags with their classes and positions. */
export function cssPathOf(el: Element): string {
  const parts: string[] = []
  let node: Element | null = el
  while (node && node !== document.documentElement) {
    if (node.id && plainId(node.id) && document.querySelectorAll(`#${CSS.escape(node.id)}`).length === 1) {
      parts.unshift(`#${CSS.escape(node.id)}`)
      break
    }
    let part = node.localName
    const classes = [...node.classList].filter((c) => /^[A-Za-z][\w-]*$/.test(c)).slice(0, 2)
    if (classes.length) part += classes.map((c) => `.${CSS.escape(c)}`).join('')
    const parent: Element | null = node.parentElement
    if (parent) {
      const same = [...parent.children].filter((c) => c.localName === node!.localName)
      if (same.length > 1) part += `:nth-of-type(${same.indexOf(node) + 1})`
    }
    parts.unshift(part)
    node = parent
  }
  return parts.join(' > ')
}

function xpathOf(el: Element): string {
  const parts: string[] = []
  let node: Element | null = el
  while (node) {
    const parent: Element | null = node.parentElement
    const same = parent ? [...parent.children].filter((c) => c.localName === node!.localName) : [node]
    parts.unshift(same.length > 1 ? `${node.localName}[${same.indexOf(node) + 1}]` : node.localName)
    node = parent
  }
  return `/${parts.join('/')}`
}

/** An element's signals as a recording keeps them. */
export function signalsOf(el: Element): Target {
  const role = roleOf(el)
  const name = collapse(nameOf(el, role))
  const rect = el.getBoundingClientRect()
  const testId = testIdOf(el)
  const label = labelOf(el)
  const text = textOf(el)
  return {
    ...(testId ? { testId: clip(testId) } : {}),
    ...(role && role !== 'generic' && name ? { role, name: clip(name) } : {}),
    ...(label ? { label: clip(label) } : {}),
    ...(text ? { text: clip(text) } : {}),
    css: cssPathOf(el),
    xpath: xpathOf(el),
    box: { x: rect.left + scrollX, y: rect.top + scrollY, width: rect.width, height: rect.height },
    describe: clip(describe(el)),
    ...(el instanceof HTMLInputElement && el.type === 'password' ? { secret: true } : {}),
    origin: el.ownerDocument.defaultView?.location.origin ?? location.origin,
  }
}

/** The signals of the element a ref or selector names (recording). */
export function targetSignals(args: { ref?: string; selector?: string }): Target {
  return signalsOf(resolveTarget(args)!)
}

/** Every visible element matching one signal. */
function matches(signal: Signal, target: Target): Element[] {
  const all = () => [...document.querySelectorAll('*')]
  let found: Element[]
  switch (signal) {
    case 'testId':
      found = all().filter((el) => testIdOf(el) === target.testId)
      break
    case 'role':
      if (!target.name) return []
      found = all().filter(
        (el) => roleOf(el) === target.role && collapse(nameOf(el, target.role)) === target.name,
      )
      break
    case 'label':
      found = all().filter((el) => isField(el) && labelOf(el) === target.label)
      break
    case 'text': {
      // Of the same role when the target had one: a heading that reads like the button is not it.
      const hits = all().filter(
        (el) => !isField(el) && textOf(el) === target.text && (!target.role || roleOf(el) === target.role),
      )
      // The innermost of nested elements with the same text.
      found = hits.filter((el) => !hits.some((other) => other !== el && el.contains(other)))
      break
    }
    case 'css':
      try {
        found = [...document.querySelectorAll(target.css!)]
      } catch {
        return []
      }
      break
    case 'xpath': {
      try {
        const result = document.evaluate(
          target.xpath!,
          document,
          null,
          XPathResult.ORDERED_NODE_SNAPSHOT_TYPE,
        )
        found = []
        for (let i = 0; i < result.snapshotLength; i++) {
          const node = result.snapshotItem(i)
          if (node instanceof Element) found.push(node)
        }
      } catch {
        return []
      }
    }
  }
  return found.filter(visible)
}

export interface Found {
  ref?: string
  /** The first signal the target has: what it is found by when nothing changed. */
  first?: Signal
  by?: Signal
  /** Per signal tried: how many elements it found. */
  tried: Partial<Record<Signal, number>>
  /** The element's signals as the page has them now. */
  now?: Target
  /** The origin of the document searched. */
  origin: string
}

/** The ladder: each signal the target has, in LADDER order; the first that finds exactly one element wins. */
export function findTarget(args: { target: Target }): Found {
  const { target } = args
  const tried: Found['tried'] = {}
  const { origin } = location
  // A document of another origin than the recorded one is not searched: nothing in it is the target.
  if (target.origin !== undefined && origin !== target.origin) return { tried, origin }
  const present = LADDER.filter((s) => target[s] !== undefined && (s !== 'role' || target.name !== undefined))
  for (const signal of present) {
    const hits = matches(signal, target)
    tried[signal] = hits.length
    if (hits.length === 1) {
      const el = hits[0]!
      return { ref: refFor(el), first: present[0], by: signal, tried, now: signalsOf(el), origin }
    }
  }
  return { ...(present[0] ? { first: present[0] } : {}), tried, origin }
}

const norm = (s: string) => collapse(s).toLowerCase()

/** Which parts of a post-condition the page (this frame) does not show; empty when it holds. */
export function postMisses(args: { post: PostCondition; checkUrl: boolean }): string[] {
  const { post } = args
  const misses: string[] = []
  if (args.checkUrl && post.url !== undefined && `${location.origin}${location.pathname}` !== post.url)
    misses.push(`the URL is ${location.origin}${location.pathname}, not ${post.url}`)
  if (args.checkUrl && post.title !== undefined && collapse(document.title) !== collapse(post.title))
    misses.push(`the title is ${JSON.stringify(document.title)}, not ${JSON.stringify(post.title)}`)
  const text = norm(document.body?.innerText ?? '')
  let names: string[] | undefined
  for (const line of post.appeared ?? []) {
    // A table row's outline line joins its cells with " | "; the page's text has them side by side.
    if (text.includes(norm(line)) || text.includes(norm(line.split(ROW_JOIN).join(' ')))) continue
    // A line the recorder read from the outline may be a name given by markup (a frame's title, an
    // image's alt, an aria-label), which the page's text does not hold: the outline's names count too.
    names ??= markupNames()
    if (!names.some((name) => name.includes(norm(line))))
      misses.push(`the page does not show ${JSON.stringify(line)}`)
  }
  return misses
}

const NAMED_BY_MARKUP =
  '[aria-label], [aria-labelledby], [title], img[alt], input[placeholder], textarea[placeholder]'
const MAX_NAMED = 5000

/** The names the outline shows that markup gives rather than content, of the elements a person sees. */
function markupNames(): string[] {
  const names: string[] = []
  for (const el of [...document.querySelectorAll(NAMED_BY_MARKUP)].slice(0, MAX_NAMED)) {
    if (!visible(el)) continue
    const name = norm(nameOf(el, roleOf(el)))
    if (name) names.push(name)
  }
  return names
}

/** The iframe element of a child frame by position, as a CSS path (recording a frame path). */
export function iframeCss(args: { index: number }): string {
  const el = document.querySelectorAll('iframe, frame')[args.index]
  if (!el) throw new PageError('not_found', 'the frame is gone')
  return cssPathOf(el)
}

/** The position among the document's frames of the iframe a CSS path names (replaying a frame path). */
export function iframeIndex(args: { css: string }): number {
  const frames = [...document.querySelectorAll('iframe, frame')]
  let el: Element | null = null
  try {
    el = document.querySelector(args.css)
  } catch {
    el = null
  }
  // A frame that moved: the only frame of the page is still the one.
  const index = el ? frames.indexOf(el) : frames.length === 1 ? 0 : -1
  if (index < 0) throw new PageError('not_found', `no frame matches ${args.css}`)
  return index
}

/** A selector for the region around where a step's target was (its form, section or landmark). */
export function regionOf(args: { target?: Target }): string | null {
  const t = args.target
  let el: Element | null = null
  if (t?.css)
    try {
      el = document.querySelector(t.css)
    } catch {
      el = null
    }
  if (!el && t?.box)
    el = document.elementFromPoint(t.box.x - scrollX + t.box.width / 2, t.box.y - scrollY + t.box.height / 2)
  const region = el?.closest('form, dialog, [role=dialog], section, main, article, aside, nav')
  return region ? cssPathOf(region) : null
}
