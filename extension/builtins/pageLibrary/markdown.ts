/**
 * Readable page content as markdown: the main content (the element given, else <main>, <article> or
 * the body) with headings, paragraphs, lists, links, emphasis, code, quotes and tables. Navigation,
 * page chrome, forms and hidden elements are left out.
 */
import { PageError } from './pageError'
import { querySelector } from './refs'
import { truncate } from './truncate'

const SKIP = new Set([
  'SCRIPT',
  'STYLE',
  'NOSCRIPT',
  'TEMPLATE',
  'SVG',
  'CANVAS',
  'IFRAME',
  'FORM',
  'BUTTON',
  'INPUT',
  'SELECT',
  'TEXTAREA',
])
const CHROME = new Set(['NAV', 'HEADER', 'FOOTER', 'ASIDE'])
const BLOCKS = new Set(['P', 'DIV', 'SECTION', 'ARTICLE', 'MAIN', 'FIGURE', 'FIGCAPTION', 'DL', 'DD', 'DT'])

const inlineText = (text: string) => text.replace(/\s+/g, ' ')

function visible(el: Element): boolean {
  return el.checkVisibility({ visibilityProperty: true }) && el.getAttribute('aria-hidden') !== 'true'
}

function inline(node: Node): string {
  if (node.nodeType === Node.TEXT_NODE) return inlineText(node.textContent ?? '')
  if (node.nodeType !== Node.ELEMENT_NODE) return ''
  const el = node as Element
  if (SKIP.has(el.tagName.toUpperCase()) || !visible(el)) return ''
  const inner = () => [...el.childNodes].map(inline).join('')
  switch (el.tagName) {
    case 'A': {
      const text = inner().trim()
      const href = (el as HTMLAnchorElement).href
      return href && !href.startsWith('javascript:') && text ? `[${text}](${href})` : text
    }
    case 'STRONG':
    case 'B': {
      const text = inner().trim()
      return text ? `**${text}**` : ''
    }
    case 'EM':
    case 'I': {
      const text = inner().trim()
      return text ? `*${text}*` : ''
    }
    case 'CODE':
      return `\`${el.textContent ?? ''}\``
    case 'BR':
      return '  \n'
    case 'IMG': {
      const alt = (el as HTMLImageElement).alt
      return alt
        ? `![${alt}](${(el as HTMLImageElement).src.startsWith('data:') ? '' : (el as HTMLImageElement).src})`
        : ''
    }
    default:
      return inner()
  }
}

function table(el: HTMLTableElement): string {
  const rows = [...el.rows].map((r) => [...r.cells].map((c) => inline(c).trim().replace(/\|/g, '\\|')))
  if (!rows.length) return ''
  const width = Math.max(...rows.map((r) => r.length))
  const line = (cells: string[]) =>
    `| ${Array.from({ length: width }, (_, i) => cells[i] ?? '').join(' | ')} |`
  return [line(rows[0]!), `|${' --- |'.repeat(width)}`, ...rows.slice(1).map(line)].join('\n')
}

/** A list as one block: an item per line, nested lists indented under their item. */
function list(el: Element, depth: number): string {
  const lines: string[] = []
  let n = 0
  for (const item of el.children) {
    if (item.tagName !== 'LI' || !visible(item)) continue
    n++
    const nested = [...item.children].filter((c) => c.tagName === 'UL' || c.tagName === 'OL')
    const own = [...item.childNodes]
      .filter((c) => !nested.includes(c as Element))
      .map(inline)
      .join('')
      .trim()
    lines.push(`${'  '.repeat(depth)}${el.tagName === 'OL' ? `${n}.` : '-'} ${own}`)
    for (const sub of nested) lines.push(list(sub, depth + 1))
  }
  return lines.join('\n')
}

function blocks(el: Element, out: string[], listDepth = 0): void {
  for (const node of el.childNodes) {
    if (node.nodeType === Node.TEXT_NODE) {
      const text = inlineText(node.textContent ?? '').trim()
      if (text) out.push(text)
      continue
    }
    if (node.nodeType !== Node.ELEMENT_NODE) continue
    const child = node as Element
    const tag = child.tagName
    if (SKIP.has(tag.toUpperCase()) || CHROME.has(tag) || !visible(child)) continue
    const heading = /^H([1-6])$/.exec(tag)
    if (heading) out.push(`${'#'.repeat(Number(heading[1]))} ${inline(child).trim()}`)
    else if (tag === 'UL' || tag === 'OL') out.push(list(child, listDepth))
    else if (tag === 'PRE') out.push(`\`\`\`\n${child.textContent ?? ''}\n\`\`\``)
    else if (tag === 'BLOCKQUOTE') out.push(`> ${inline(child).trim()}`)
    else if (tag === 'TABLE') out.push(table(child as HTMLTableElement))
    else if (tag === 'HR') out.push('---')
    else if (BLOCKS.has(tag) || child.children.length > 0) {
      const hasBlocks = [...child.children].some((c) => !getComputedStyle(c).display.startsWith('inline'))
      if (hasBlocks) blocks(child, out, listDepth)
      else {
        const text = inline(child).trim()
        if (text) out.push(text)
      }
    } else {
      const text = inline(child).trim()
      if (text) out.push(text)
    }
  }
}

export function markdown(args: { selector?: string; maxLength: number; offset?: number }) {
  const root =
    args.selector !== undefined
      ? querySelector(args.selector)
      : (document.querySelector('main, [role=main]') ?? document.querySelector('article') ?? document.body)
  if (!root) throw new PageError('not_found', `no element matches the selector ${args.selector ?? ''}`)
  const out: string[] = []
  blocks(root, out)
  const title = document.title && !out[0]?.startsWith('# ') ? `# ${document.title}\n\n` : ''
  const text = title + out.filter(Boolean).join('\n\n')
  const cut = truncate(
    text,
    args.maxLength,
    (n, total, next) =>
      `\n[truncated at maxLength: showing ${n} of ${total} characters; the rest: offset: ${next}; or pass selector for one part of the page]`,
    args.offset,
  )
  return { markdown: cut.text, length: cut.length, truncated: cut.truncated }
}
