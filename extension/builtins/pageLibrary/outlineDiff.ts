/**
 * What an action changed in a snapshot outline: the new and changed lines, each under the parent lines
 * that place it (written once), and the lines that went away. Pure text in, text out.
 */

const MAX_REMOVED_SHOWN = 5
const REMOVED_CLIP = 120

export interface OutlineDiff {
  /** New and changed lines with their parents, in page order; empty when nothing was added. */
  added: string[]
  /** Lines no longer on the page (a changed line counts as added, not removed). */
  removed: string[]
}

const indentOf = (line: string): number => line.length - line.trimStart().length
/** Focus moves with every click and keystroke; it is not a change the agent needs to hear of. */
const normal = (line: string): string => line.replace(' [focused]', '')
const refOf = (line: string): string | undefined => /\[ref=([^\]]+)\]/.exec(line)?.[1]

/** Longest common subsequence of two line lists, as the indexes of `after` that are unchanged. */
function unchanged(before: string[], after: string[]): Set<number> {
  const n = before.length
  const m = after.length
  // Trim the common start and end first: most actions change a small part of a page.
  let start = 0
  while (start < n && start < m && before[start] === after[start]) start++
  let endB = n
  let endA = m
  while (endB > start && endA > start && before[endB - 1] === after[endA - 1]) {
    endB--
    endA--
  }
  const kept = new Set<number>()
  for (let i = 0; i < start; i++) kept.add(i)
  for (let i = endA; i < m; i++) kept.add(i)
  const b = before.slice(start, endB)
  const a = after.slice(start, endA)
  if (b.length * a.length > 4_000_000) {
    // Too big for the table: lines present before count as unchanged.
    const seen = new Map<string, number>()
    for (const line of b) seen.set(line, (seen.get(line) ?? 0) + 1)
    a.forEach((line, i) => {
      const left = seen.get(line) ?? 0
      if (left > 0) {
        seen.set(line, left - 1)
        kept.add(start + i)
      }
    })
    return kept
  }
  const table = Array.from({ length: b.length + 1 }, () => new Uint32Array(a.length + 1))
  for (let i = b.length - 1; i >= 0; i--)
    for (let j = a.length - 1; j >= 0; j--)
      table[i]![j] =
        b[i] === a[j] ? table[i + 1]![j + 1]! + 1 : Math.max(table[i + 1]![j]!, table[i]![j + 1]!)
  for (let i = 0, j = 0; i < b.length && j < a.length;) {
    if (b[i] === a[j]) {
      kept.add(start + j)
      i++
      j++
    } else if (table[i + 1]![j]! >= table[i]![j + 1]!) i++
    else j++
  }
  return kept
}

/**
 * Compares two outlines (without their URL and Title lines). `quiet` refs are the fields the action
 * set itself: their own lines are left out (the agent knows what it typed).
 */
export function diffOutline(beforeText: string, afterText: string, quiet: string[] = []): OutlineDiff {
  const before = beforeText.split('\n').map(normal)
  const after = afterText.split('\n').map(normal)
  const kept = unchanged(before, after)
  const afterSet = new Set(after)
  const beforeRefs = new Set(before.map(refOf).filter((r) => r !== undefined))
  const changedRefs = new Set<string>()
  const silent = new Set(quiet)
  const added: string[] = []
  const shownParents = new Set<number>()
  after.forEach((line, i) => {
    if (kept.has(i)) return
    const ref = refOf(line)
    if (ref !== undefined && silent.has(ref)) return
    if (ref !== undefined && beforeRefs.has(ref)) changedRefs.add(ref)
    // The parents that place this line, those not already written.
    const parents: number[] = []
    for (let j = i - 1, indent = indentOf(line); j >= 0 && indent > 0; j--) {
      if (indentOf(after[j]!) < indent) {
        indent = indentOf(after[j]!)
        if (shownParents.has(j) || !kept.has(j)) break
        parents.unshift(j)
      }
    }
    for (const j of parents) {
      shownParents.add(j)
      added.push(after[j]!)
    }
    shownParents.add(i)
    added.push(line)
  })
  const removed = before.filter((line) => {
    if (afterSet.has(line)) return false
    const ref = refOf(line)
    return !(ref !== undefined && (changedRefs.has(ref) || silent.has(ref)))
  })
  return { added, removed }
}

/** The diff as the agent reads it; `room` bytes at most for the added lines. */
export function renderDiff(diff: OutlineDiff, room: number): string {
  if (!diff.added.length && !diff.removed.length) return 'No change on the page.'
  const out: string[] = []
  if (diff.added.length) {
    out.push('Changed on the page (new and changed lines, under their parents):')
    let left = room
    let shown = 0
    for (const line of diff.added) {
      const size = new TextEncoder().encode(line).length + 1
      if (size > left) break
      out.push(line)
      left -= size
      shown++
    }
    if (shown < diff.added.length)
      out.push(
        `[cut at the budget: ${diff.added.length - shown} more changed lines; browser_snapshot for the page, or browser_find]`,
      )
  }
  if (diff.removed.length) {
    const shown = diff.removed
      .slice(0, MAX_REMOVED_SHOWN)
      .map((l) => {
        const t = l.trim()
        return t.length > REMOVED_CLIP ? `${t.slice(0, REMOVED_CLIP - 1)}…` : t
      })
      .join(' / ')
    const more =
      diff.removed.length > MAX_REMOVED_SHOWN ? ` and ${diff.removed.length - MAX_REMOVED_SHOWN} more` : ''
    out.push(`Gone: ${shown}${more}`)
  }
  return out.join('\n')
}
