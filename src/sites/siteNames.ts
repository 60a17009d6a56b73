/**
 * The names agents call sites' tools by. A page may declare any name, `browser_navigate` included, so
 * a site tool's MCP name is built to be unable to collide with a built-in or a plugin tool: it always
 * contains `__`, which no plugin tool (`<plugin>_<tool>`, single underscores) and no built-in has. It
 * keeps to `[A-Za-z0-9_-]` and 64 characters, which every MCP client accepts, and names the site:
 * `mail-example-com__search`. The site part never reads as another origin's: it is the plain slug only
 * when the slug spells exactly one origin (https, a host of letters and digits between dots, a port),
 * and otherwise (http, a `-` or `_` in the host, a slug cut to make room) it is the slug, or what fits
 * of it, then `_` and a hash of the whole origin: `127-0-0-1-8080_<16 hex>__add_todo`. A plain slug
 * has no `_`, so a plain site part and a hashed one never meet, and a page cannot steer where the cut
 * falls to make its origin's name equal another's. When two tools of one origin would get one name (a
 * name changed by the slug), each gets a short hash of its origin and name.
 */
import { createHash } from 'node:crypto'

export const SITE_TOOL_NAME_MAX = 64
const HASH_CHARS = 6
/** 64 bits: an origin another origin's hashed site part equals cannot be found by trying names. */
const ORIGIN_HASH_CHARS = 16

/** `https://mail.example.com:8443` -> `mail-example-com-8443`. */
export function siteSlug(origin: string): string {
  const url = new URL(origin)
  const host = url.hostname.replace(/^\[|\]$/g, '')
  const slug = `${host}${url.port ? `-${url.port}` : ''}`
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
  return slug || 'site'
}

/** Whether `siteSlug(origin)` names this origin and no other: https, dot-separated `[a-z0-9]` labels. */
function slugIsExact(origin: string): boolean {
  const url = new URL(origin)
  return url.protocol === 'https:' && /^[a-z0-9]+(\.[a-z0-9]+)*$/.test(url.hostname)
}

const originHash = (origin: string): string =>
  createHash('sha256').update(origin).digest('hex').slice(0, ORIGIN_HASH_CHARS)

/** The site part for `origin` in at most `room` characters (never under the hash's own length). */
function sitePart(origin: string, room: number): string {
  const slug = siteSlug(origin)
  if (slugIsExact(origin) && slug.length <= room) return slug
  const kept = slug.slice(0, Math.max(1, room - ORIGIN_HASH_CHARS - 1)).replace(/-+$/, '')
  return `${kept || 'site'}_${originHash(origin)}`
}

/** How long the site part wants to be, uncut. */
const sitePartLength = (origin: string): number =>
  siteSlug(origin).length + (slugIsExact(origin) ? 0 : ORIGIN_HASH_CHARS + 1)

function toolSlug(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/_{2,}/g, '_') || 'tool'
}

const shortHash = (origin: string, name: string): string =>
  createHash('sha256').update(`${origin}\n${name}`).digest('hex').slice(0, HASH_CHARS)

function fit(origin: string, tool: string, suffix: string): string {
  // Room for the tool first; the site part gives way down to its hash (the description names the site).
  const room = SITE_TOOL_NAME_MAX - suffix.length - 2
  const toolPart = tool.slice(0, Math.max(8, room - Math.min(sitePartLength(origin), 24)))
  return `${sitePart(origin, room - toolPart.length)}__${toolPart}${suffix}`
}

/**
 * MCP names for every `(origin, declared name)`: same input, same names, whatever the order. Each
 * name is unique in the result and contains `__`.
 */
export function siteToolNames(tools: readonly { origin: string; name: string }[]): Map<string, string> {
  const key = (t: { origin: string; name: string }) => `${t.origin}\n${t.name}`
  const plain = new Map<string, { origin: string; name: string; exact: boolean }[]>()
  for (const t of tools) {
    const slug = toolSlug(t.name)
    const name = fit(t.origin, slug, '')
    const list = plain.get(name) ?? []
    list.push({ ...t, exact: slug === t.name && name.endsWith(`__${slug}`) })
    plain.set(name, list)
  }
  const out = new Map<string, string>()
  const used = new Set<string>()
  for (const [name, owners] of plain)
    if (owners.length === 1 && owners[0]!.exact) {
      out.set(key(owners[0]!), name)
      used.add(name)
    }
  for (const [, owners] of plain)
    for (const t of owners) {
      if (out.has(key(t))) continue
      let name = fit(t.origin, toolSlug(t.name), `_${shortHash(t.origin, t.name)}`)
      for (let n = 2; used.has(name); n++)
        name = fit(t.origin, toolSlug(t.name), `_${shortHash(t.origin, `${t.name}#${n}`)}`)
      out.set(key(t), name)
      used.add(name)
    }
  return out
}

/** True for a name only a site tool can have (see above). */
export const isSiteToolName = (name: string): boolean => name.includes('__')
