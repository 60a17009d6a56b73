import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  BROWSER_TOOL_GROUPS,
  BROWSER_TOOL_NAMES,
  CORE_BROWSER_TOOLS,
  PAGE_TEXT_FREE_TOOLS,
  TAB_TOOLS,
  TOOL_NAMES_BY_GROUP,
  browserToolGroup,
} from '../../../src/tools'
import { BROWSER_TOOL_FACTS } from '../../../src/tools/facts'

// Every fact about a built-in tool lives in its definition (src/tools/<group>.ts); every list of
// tools by fact is derived from the definitions. Adding a tool touches its group's file here and in
// extension/builtins/, and nothing else.
const root = join(import.meta.dirname, '..', '..', '..')
const TOOL_HOMES = new Set(['common', 'define', 'facts', 'index'])
const groupFiles = readdirSync(join(root, 'src/tools'))
  .map((name) => name.replace(/\.ts$/, ''))
  .filter((name) => !TOOL_HOMES.has(name))

/** The definitions as their files write them: each `name:` with the facts written right under it. */
function writtenFacts(group: string) {
  const text = readFileSync(join(root, 'src/tools', `${group}.ts`), 'utf8')
  return [...text.matchAll(/\n(\s+)name: '([a-z_]+)',\n((?:\1(?:core|pageText): [a-z]+,\n)*)/g)].map((m) => ({
    name: m[2]!,
    core: m[3]!.includes('core: true'),
    pageTextFree: m[3]!.includes('pageText: false'),
  }))
}

const written = groupFiles.flatMap((group) => writtenFacts(group).map((facts) => ({ ...facts, group })))

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(join(root, path)).isDirectory()) return sourceFiles(path)
    return /\.tsx?$/.test(name) ? [path] : []
  })
}

describe('the built-in tools’ facts', () => {
  it('finds every tool in its group’s file, and every group file is a group', () => {
    expect(written.map((t) => t.name).sort()).toEqual([...BROWSER_TOOL_NAMES].sort())
    expect(groupFiles.sort()).toEqual(Object.keys(BROWSER_TOOL_GROUPS).sort())
  })

  it('derives the group lists, the core set and the page-text list from what the definitions say', () => {
    for (const tool of written) expect(browserToolGroup(tool.name), tool.name).toBe(tool.group)
    for (const [group, names] of Object.entries(TOOL_NAMES_BY_GROUP))
      expect(names, group).toEqual(
        written
          .filter((t) => t.group === group)
          .map((t) => t.name)
          .sort(),
      )
    expect([...CORE_BROWSER_TOOLS].sort()).toEqual(
      written
        .filter((t) => t.core)
        .map((t) => t.name)
        .sort(),
    )
    expect([...PAGE_TEXT_FREE_TOOLS].sort()).toEqual(
      written
        .filter((t) => t.pageTextFree)
        .map((t) => t.name)
        .sort(),
    )
    // The core set spans the everyday groups; a tool in it is listed without its group opted into.
    expect(CORE_BROWSER_TOOLS.size).toBeGreaterThan(10)
    expect(PAGE_TEXT_FREE_TOOLS.size).toBeGreaterThan(10)
  })

  it('gives the side panel each tool’s group and core flag as the definitions say (src/tools/facts.ts)', () => {
    expect(Object.keys(BROWSER_TOOL_FACTS).sort()).toEqual([...BROWSER_TOOL_NAMES].sort())
    for (const tool of written)
      expect(BROWSER_TOOL_FACTS[tool.name], tool.name).toEqual({ group: tool.group, core: tool.core })
  })

  it('derives the tab tools from the definitions’ inputs: a tool that names a tab acts on it', () => {
    for (const group of Object.values(BROWSER_TOOL_GROUPS))
      for (const tool of Object.values(group) as { name: string; input: { properties: object } }[])
        expect(TAB_TOOLS.has(tool.name), tool.name).toBe('tabId' in tool.input.properties)
    expect(TAB_TOOLS.has('browser_click')).toBe(true)
    expect(TAB_TOOLS.has('browser_list_tabs')).toBe(false)
  })

  it('is kept in no list outside src/tools and extension/builtins: no file writes three built-in names in one literal', () => {
    const names = new Set(BROWSER_TOOL_NAMES)
    const lists = ['src', 'machines', 'cli', 'extension']
      .flatMap(sourceFiles)
      .filter((file) => !file.startsWith('src/tools/') && !file.startsWith('extension/builtins/'))
      // A wire enum, not a list kept beside the definitions: the calls a person's recorded event may
      // stand for (a new tool never needs to join it).
      .filter((file) => file !== 'src/protocol/workflowPanel.ts')
      .flatMap((file) => {
        const text = readFileSync(join(root, file), 'utf8')
        // An array literal (a Set's too) without nested brackets, and the built-in names quoted in it.
        return [...text.matchAll(/\[[^[\]]*\]/g)]
          .map((m) => [...m[0].matchAll(/'([a-z_]+)'/g)].map((n) => n[1]!).filter((n) => names.has(n)))
          .filter((found) => new Set(found).size >= 3)
          .map((found) => `${relative(root, join(root, file))}: ${found.join(', ')}`)
      })
    expect(lists).toEqual([])
  })
})
