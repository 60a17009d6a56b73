/**
 * A step's post-condition, read from the result its call returned: the action's settle-and-diff
 * (extension/builtins/actionReport.ts) as the agent saw it. A navigation's full page gives the URL,
 * the title and its first headings; a diff gives the new URL and a few lines that appeared, the ones
 * that say most (alerts, status, headings, text) first; a dialog gives its type and message. Field
 * values (textboxes) are never taken: they are what was typed.
 */
import { PAGE_CONTENT_CLOSE, PAGE_CONTENT_OPEN } from '../protocol/pageContent'
import type { PostCondition } from '../protocol/workflow'

const MAX_APPEARED = 3
const MAX_TEXT = 200
/** Roles whose line is worth checking again, best first. */
const RANK = [
  'alert',
  'status',
  'dialog',
  'alertdialog',
  'heading',
  'text',
  'cell',
  'listitem',
  'row',
  'paragraph',
]
const VALUE_ROLES = new Set(['textbox', 'searchbox', 'combobox', 'spinbutton', 'slider', 'checkbox', 'radio'])

/** `https://a.example/x/y?q=1#f` -> `https://a.example/x/y`. */
export function urlWithoutQuery(url: string): string | undefined {
  try {
    const parsed = new URL(url)
    return `${parsed.origin}${parsed.pathname}`
  } catch {
    return undefined
  }
}

interface Line {
  role: string
  text: string
  /** A container line (`- region "Message":`), its children on the lines below. */
  container: boolean
}

/**
 * Containers whose own line is worth checking: a dialog that opened. Any other container's line in a
 * diff places the lines that changed under it (its name shows nothing new), and a container may be
 * empty, or hidden, when the step is replayed.
 */
const CHECKED_CONTAINERS = new Set(['dialog', 'alertdialog'])
/**
 * Roles that structure a page rather than say something on it: their line is named by markup (an
 * `aria-label`, a frame's title) and changes when what is inside it changes or empties, so it is no
 * sign of what the step did (an emptied `region "Message"` is still named Message, but shows nothing).
 */
const STRUCTURE_ROLES = new Set([
  'main',
  'region',
  'navigation',
  'banner',
  'contentinfo',
  'complementary',
  'form',
  'search',
  'group',
  'list',
  'table',
  'rowgroup',
  'grid',
  'tree',
  'tablist',
  'toolbar',
  'menu',
  'menubar',
  'figure',
  'article',
  'iframe',
])

/** One outline line (`  - button "Save" [ref=e3]`, `- text: Saved!`) as role and readable text. */
function parseLine(raw: string): Line | undefined {
  const line = raw.trim()
  if (!line.startsWith('- ')) return undefined
  const body = line
    .slice(2)
    .replace(/ \[(ref|level|options)=[^\]]*\]/g, '')
    .replace(/ -> \S+$/, '')
  const named = /^([a-z]+) ("(?:[^"\\]|\\.)*")(.*)$/.exec(body)
  if (named) {
    const name = JSON.parse(named[2]!) as string
    return { role: named[1]!, text: name, container: named[3]!.trim() === ':' }
  }
  const plain = /^([a-z]+): (.+)$/.exec(body)
  if (plain)
    return {
      role: plain[1]!,
      text: plain[2]!.replace(/ [a-z]+ "(?:[^"\\]|\\.)*"/g, '').trim(),
      container: false,
    }
  return undefined
}

const clip = (text: string) => (text.length > MAX_TEXT ? text.slice(0, MAX_TEXT) : text)

function bestLines(lines: readonly string[], max: number): string[] {
  const parsed = lines
    .map(parseLine)
    .filter((l): l is Line => l !== undefined && !VALUE_ROLES.has(l.role) && l.text.length > 1)
    .filter((l) => !STRUCTURE_ROLES.has(l.role) && (!l.container || CHECKED_CONTAINERS.has(l.role)))
    .filter((l) => !l.text.endsWith('…'))
  const rank = (l: Line) => {
    const at = RANK.indexOf(l.role)
    return at < 0 ? RANK.length : at
  }
  const picked: string[] = []
  for (const line of [...parsed].sort((a, b) => rank(a) - rank(b))) {
    const text = clip(line.text)
    if (!picked.includes(text)) picked.push(text)
    if (picked.length >= max) break
  }
  return picked
}

/** The post-condition a call's result text shows; undefined when it shows nothing to check. */
export function postConditionOf(text: string): PostCondition | undefined {
  if (!text) return undefined
  // The page-content markers around a result (src/protocol/pageContent.ts) are not the page's.
  const lines = text.split('\n').filter((l) => l !== PAGE_CONTENT_OPEN && l !== PAGE_CONTENT_CLOSE)
  const post: PostCondition = {}
  const dialogAt = text.indexOf('[open dialogs: ')
  if (dialogAt >= 0) {
    try {
      const json = text.slice(dialogAt + '[open dialogs: '.length, text.lastIndexOf(']'))
      const [dialog] = JSON.parse(json) as { type: string; message?: string }[]
      if (dialog)
        post.dialog = {
          type: dialog.type,
          ...(dialog.message ? { message: clip(dialog.message) } : {}),
        }
    } catch {
      post.dialog = { type: 'dialog' }
    }
    return post
  }
  const url = lines.find((l) => l.startsWith('URL: '))
  const full = lines[0]?.startsWith('URL: ') && lines[1]?.startsWith('Title: ')
  if (url) {
    const at = urlWithoutQuery(url.slice(5).trim())
    if (at) post.url = at
  }
  if (full) {
    const title = lines[1]!.slice(7).trim()
    if (title) post.title = clip(title)
    const headings = lines.filter((l) => /^\s*- heading "/.test(l))
    const appeared = bestLines(headings.length ? headings : lines.slice(2), 2)
    if (appeared.length) post.appeared = appeared
  } else {
    const start = lines.findIndex((l) => l.startsWith('Changed on the page'))
    if (start >= 0) {
      const changed = lines.slice(start + 1).filter((l) => !l.startsWith('Gone: ') && !l.startsWith('['))
      const appeared = bestLines(changed, MAX_APPEARED)
      if (appeared.length) post.appeared = appeared
    }
  }
  return Object.keys(post).length ? post : undefined
}
