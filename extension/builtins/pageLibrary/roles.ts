/** A small, practical approximation of ARIA roles and accessible names, enough for agents to act. */

const INPUT_ROLES: Record<string, string> = {
  button: 'button',
  submit: 'button',
  reset: 'button',
  image: 'button',
  file: 'button',
  checkbox: 'checkbox',
  radio: 'radio',
  range: 'slider',
  number: 'spinbutton',
  search: 'searchbox',
}

const TAG_ROLES: Record<string, string> = {
  BUTTON: 'button',
  SUMMARY: 'button',
  TEXTAREA: 'textbox',
  OPTION: 'option',
  UL: 'list',
  OL: 'list',
  LI: 'listitem',
  NAV: 'navigation',
  MAIN: 'main',
  ASIDE: 'complementary',
  FORM: 'form',
  TABLE: 'table',
  TR: 'row',
  TD: 'cell',
  TH: 'columnheader',
  DIALOG: 'dialog',
  DETAILS: 'group',
  FIELDSET: 'group',
  P: 'paragraph',
  ARTICLE: 'article',
  HR: 'separator',
  IFRAME: 'iframe',
  PROGRESS: 'progressbar',
  METER: 'meter',
  BLOCKQUOTE: 'blockquote',
  CAPTION: 'caption',
  DL: 'list',
  DT: 'term',
  DD: 'definition',
  PRE: 'code',
}

/** The element's role, or '' when it is only a generic container. */
export function roleOf(el: Element): string {
  const explicit = el.getAttribute('role')?.trim().split(/\s+/)[0]
  if (explicit && explicit !== 'none' && explicit !== 'presentation' && explicit !== 'generic')
    return explicit
  if (explicit) return ''
  const tag = el.tagName
  if (tag === 'A' || tag === 'AREA') return el.hasAttribute('href') ? 'link' : ''
  if (tag === 'INPUT') {
    const type = (el as HTMLInputElement).type
    if (type === 'hidden') return ''
    return INPUT_ROLES[type] ?? (el.hasAttribute('list') ? 'combobox' : 'textbox')
  }
  if (tag === 'SELECT') {
    const select = el as HTMLSelectElement
    return select.multiple || select.size > 1 ? 'listbox' : 'combobox'
  }
  if (/^H[1-6]$/.test(tag)) return 'heading'
  if (tag === 'IMG') return (el as HTMLImageElement).alt === '' && el.hasAttribute('alt') ? '' : 'img'
  if (tag === 'SECTION')
    return el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby') ? 'region' : ''
  if (tag === 'HEADER' && !el.closest('article, aside, main, nav, section')) return 'banner'
  if (tag === 'FOOTER' && !el.closest('article, aside, main, nav, section')) return 'contentinfo'
  if (el instanceof HTMLElement && el.isContentEditable && !el.parentElement?.isContentEditable)
    return 'textbox'
  return TAG_ROLES[tag] ?? ''
}

export const collapse = (text: string): string => text.replace(/\s+/g, ' ').trim()
const clip = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text)

/** Roles whose name comes from their content (ARIA "name from content"). */
const NAME_FROM_CONTENT = new Set([
  'button',
  'link',
  'heading',
  'option',
  'cell',
  'columnheader',
  'rowheader',
  'tab',
  'menuitem',
  'menuitemcheckbox',
  'menuitemradio',
  'treeitem',
  'checkbox',
  'radio',
  'switch',
  'tooltip',
  'caption',
  'term',
])

/**
 * The text of a control's labels without the controls inside them: a select inside its label is named
 * "Country", not "Country Choose... Germany France", as the accessibility tree names it.
 */
function labelsText(el: Element): string {
  const labels = (el as HTMLInputElement).labels
  if (!labels || labels.length === 0) return ''
  return collapse([...labels].map((l) => textWithoutControls(l)).join(' '))
}

function textWithoutControls(node: Node): string {
  if (node.nodeType === Node.TEXT_NODE) return node.textContent ?? ''
  if (!(node instanceof Element)) return ''
  if (node.matches('select, textarea, input, button, script, style')) return ''
  let out = ''
  for (const child of node.childNodes) out += textWithoutControls(child)
  // Block elements (paragraphs, divs) separate words as innerText does.
  return node instanceof HTMLElement && /^(P|DIV|BR|LI)$/.test(node.tagName) ? ` ${out} ` : out
}

/** The name aria-labelledby or aria-label gives, or '' when neither names anything. */
function ariaNameOf(el: Element): string {
  const labelledBy = el.getAttribute('aria-labelledby')
  if (labelledBy) {
    const text = labelledBy
      .split(/\s+/)
      .map((id) => document.getElementById(id)?.textContent ?? '')
      .join(' ')
    if (collapse(text)) return clip(collapse(text), 200)
  }
  const aria = el.getAttribute('aria-label')
  if (aria && collapse(aria)) return clip(collapse(aria), 200)
  return ''
}

/** A name given by markup (aria-labelledby, aria-label, legend, caption), never taken from content. */
export function explicitNameOf(el: Element): string {
  const aria = ariaNameOf(el)
  if (aria) return aria
  if (el instanceof HTMLFieldSetElement) {
    const legend = el.querySelector(':scope > legend')
    if (legend) return clip(collapse(legend.textContent ?? ''), 200)
  }
  if (el instanceof HTMLTableElement && el.caption) return clip(collapse(el.caption.textContent ?? ''), 200)
  return ''
}

export function nameOf(el: Element, role: string): string {
  const aria = ariaNameOf(el)
  if (aria) return aria
  if (
    el instanceof HTMLInputElement ||
    el instanceof HTMLTextAreaElement ||
    el instanceof HTMLSelectElement
  ) {
    const fromLabel = labelsText(el)
    if (fromLabel) return clip(fromLabel, 200)
    if (el instanceof HTMLInputElement && ['submit', 'reset', 'button'].includes(el.type))
      return clip(el.value || (el.type === 'submit' ? 'Submit' : el.type === 'reset' ? 'Reset' : ''), 200)
    if (el instanceof HTMLInputElement && el.type === 'image') return clip(el.alt || 'Submit', 200)
    const placeholder = el.getAttribute('placeholder')
    if (placeholder) return clip(collapse(placeholder), 200)
  }
  if (el instanceof HTMLImageElement) return clip(collapse(el.alt || el.title), 200)
  if (el instanceof HTMLFieldSetElement) {
    const legend = el.querySelector(':scope > legend')
    if (legend) return clip(collapse(legend.textContent ?? ''), 200)
  }
  if (el instanceof HTMLTableElement && el.caption) return clip(collapse(el.caption.textContent ?? ''), 200)
  if (NAME_FROM_CONTENT.has(role)) {
    const text = collapse((el as HTMLElement).innerText ?? el.textContent ?? '')
    if (text) return clip(text, 200)
  }
  return clip(collapse(el.getAttribute('title') ?? ''), 200)
}

/** `button "Save"` or `div.banner`: how tools name an element in results and errors. */
export function describe(el: Element): string {
  const role = roleOf(el)
  const name = role ? nameOf(el, role) : ''
  if (role) return name ? `${role} "${name}"` : role
  const id = el.id ? `#${el.id}` : ''
  const cls =
    typeof el.className === 'string' && el.className.trim()
      ? `.${el.className.trim().split(/\s+/).slice(0, 2).join('.')}`
      : ''
  return `${el.tagName.toLowerCase()}${id}${cls}`
}
