/**
 * Labels for results of tools that run in no tab but list pages by URL (tabs, windows, downloads:
 * `source: 'listed'` in src/tools): each listed item (the innermost object that names a `url`, with
 * its title, file name and the rest) was read from that URL's origin. The result as a whole is
 * labelled with every origin it lists; each item is remembered under its own, so an item read on A
 * and sent back to A is no flow, whatever else the list held.
 */
export interface ListedItem {
  origin: string
  item: Record<string, unknown>
}

/** A URL's origin; undefined for one that is not a URL or has no origin (`about:blank`, `data:`). */
export function originOf(url: string): string | undefined {
  try {
    const origin = new URL(url).origin
    return origin === 'null' ? undefined : origin
  } catch {
    return undefined
  }
}

const MAX_DEPTH = 16
const MAX_ITEMS = 10_000

/** The items of `output` that name a web page or file by URL, with that URL's origin. */
export function listedItems(output: unknown): ListedItem[] {
  const items: ListedItem[] = []
  const walk = (value: unknown, depth: number): void => {
    if (items.length >= MAX_ITEMS || depth > MAX_DEPTH || value === null || typeof value !== 'object') return
    if (Array.isArray(value)) {
      for (const next of value) walk(next, depth + 1)
      return
    }
    const record = value as Record<string, unknown>
    const origin = typeof record.url === 'string' ? originOf(record.url) : undefined
    if (origin) items.push({ origin, item: record })
    else for (const next of Object.values(record)) walk(next, depth + 1)
  }
  walk(output, 0)
  return items
}

/** Every origin a listed result names, in order of first appearance; undefined when it names none. */
export function listedOrigins(output: unknown): string[] | undefined {
  const origins = [...new Set(listedItems(output).map((i) => i.origin))]
  return origins.length ? origins : undefined
}

/**
 * `output` with the listed items of origins outside `readable` left out of their lists; undefined
 * when such an item is not in a list (the result is that one page: nothing of it can be kept).
 */
export function readableItems(output: unknown, readable: readonly string[]): unknown {
  let whole = true
  const keep = (value: unknown, depth: number): unknown => {
    if (depth > MAX_DEPTH || value === null || typeof value !== 'object') return value
    if (Array.isArray(value))
      return value.filter((next) => !isUnreadable(next, readable)).map((next) => keep(next, depth + 1))
    const record = value as Record<string, unknown>
    if (isUnreadable(record, readable)) {
      whole = false
      return value
    }
    if (typeof record.url === 'string') return value
    return Object.fromEntries(Object.entries(record).map(([key, next]) => [key, keep(next, depth + 1)]))
  }
  const kept = keep(output, 0)
  return whole ? kept : undefined
}

function isUnreadable(value: unknown, readable: readonly string[]): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false
  const url = (value as { url?: unknown }).url
  const origin = typeof url === 'string' ? originOf(url) : undefined
  return origin !== undefined && !readable.includes(origin)
}
