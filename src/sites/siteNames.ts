/**
 * The names agents call sites' tools by. A page may declare any name, `browser_navigate` included, so
 * a site tool's MCP name is built to be unable to collide with a built-in or a plugin tool: it always
 * contains `__`, which no plugin tool (`<plugin>_<tool>`, single underscores) and no built-in has. It
 * keeps to `[A-Za-z0-9_-]` and 64 characters, which every MCP client accepts, and names the site:
 * `mail-example-com__search`, `127-0-0-1-8080__add_todo`. When two tools would get one name (two
 * origins with one slug, a name changed by the slug), each gets a short hash of its origin and name.
 */
import { createHash } from 'node:crypto'

export const SITE_TOOL_NAME_MAX = 64
const HASH_CHARS = 6

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

function toolSlug(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/_{2,}/g, '_') || 'tool'
}

const shortHash = (origin: string, name: string): string =>
  createHash('sha256').update(`${origin}\n${name}`).digest('hex').slice(0, HASH_CHARS)

function fit(site: string, tool: string, suffix: string): string {
  // Room for the tool first; the site slug gives way (it is still named in the description).
  const room = SITE_TOOL_NAME_MAX - suffix.length - 2
  const toolPart = tool.slice(0, Math.max(8, room - Math.min(site.length, 24)))
  const sitePart = site.slice(0, Math.max(1, room - toolPart.length))
  return `${sitePart}__${toolPart}${suffix}`
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
    const name = fit(siteSlug(t.origin), slug, '')
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
      let name = fit(siteSlug(t.origin), toolSlug(t.name), `_${shortHash(t.origin, t.name)}`)
      for (let n = 2; used.has(name); n++)
        name = fit(siteSlug(t.origin), toolSlug(t.name), `_${shortHash(t.origin, `${t.name}#${n}`)}`)
      out.set(key(t), name)
      used.add(name)
    }
  return out
}

/** True for a name only a site tool can have (see above). */
export const isSiteToolName = (name: string): boolean => name.includes('__')
