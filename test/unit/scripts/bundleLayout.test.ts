// Start-up reads one file: dist/server.js carries its dependencies (scripts/build.mjs), apart from the
// few that must stay packages, and what only some modes need sits in dist/chunks/, loaded on demand.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { SERVER_JS, waitForBuild } from '../../helpers/daemon'

const text = () => readFileSync(SERVER_JS, 'utf8')
const specifiers = (source: string, pattern: RegExp) => [...source.matchAll(pattern)].map((m) => m[1] ?? '')

describe('the daemon bundle', () => {
  it('imports at start only Node built-ins and its own chunks', async () => {
    await waitForBuild(SERVER_JS)
    const source = text()
    const statics = specifiers(source, /^(?:import|export)\b[^;'"]*?(?:from\s*)?["']([^"']+)["'];?$/gm)
    expect(statics.length).toBeGreaterThan(0)
    for (const specifier of statics) expect(specifier).toMatch(/^(node:|\.\/chunks\/)/)
  })

  it('loads on demand only the packages kept external, and its chunks', () => {
    const dynamic = specifiers(text(), /\bimport\(\s*["']([^"']+)["']\s*\)/g)
    for (const specifier of dynamic) expect(specifier).toMatch(/^(\.\/chunks\/|@statelyai\/inspect$)/)
  })

  it('serves MCP itself: no part of the MCP SDK (nor zod) is in it or loaded by it', () => {
    expect(text()).not.toContain('@modelcontextprotocol/sdk')
    expect(text()).not.toMatch(/^\/\/ \S*node_modules\/zod\//m)
  })

  it('leaves the dev-mode watcher (chokidar) to a chunk', () => {
    expect(text()).not.toMatch(/^\/\/ \S*node_modules\/chokidar\//m)
    const chunk = /import\("\.\/chunks\/(server-devWatcher-[^"]+)"\)/.exec(text())?.[1]
    expect(chunk).toBeDefined()
    const watcher = readFileSync(join(SERVER_JS, '..', 'chunks', chunk ?? ''), 'utf8')
    expect(watcher).toMatch(/^\/\/ \S*node_modules\/chokidar\//m)
  })

  it('is ASCII, so V8 keeps its source at one byte per character', () => {
    // As many UTF-8 bytes as characters: every character is ASCII.
    expect(Buffer.byteLength(text())).toBe(text().length)
  })
})
