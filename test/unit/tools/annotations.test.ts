import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { BROWSER_TOOL_DEFINITIONS } from '../../../src/tools/index'

describe('built-in tool annotations', () => {
  it('say of every tool whether it only reads and whether it reaches the web', () => {
    for (const tool of BROWSER_TOOL_DEFINITIONS) {
      expect(typeof tool.annotations.readOnlyHint, tool.name).toBe('boolean')
      expect(typeof tool.annotations.openWorldHint, tool.name).toBe('boolean')
    }
  })

  it('say of every tool that changes something whether it destroys and whether it repeats safely, and of no other', () => {
    for (const { name, annotations } of BROWSER_TOOL_DEFINITIONS) {
      const changes = !annotations.readOnlyHint
      expect(typeof annotations.destructiveHint === 'boolean', name).toBe(changes)
      expect(typeof annotations.idempotentHint === 'boolean', name).toBe(changes)
    }
  })

  it('mark the tools that close, clear, delete or run code as destructive', () => {
    const destructive = new Set(
      BROWSER_TOOL_DEFINITIONS.filter((tool) => tool.annotations.destructiveHint).map((tool) => tool.name),
    )
    for (const name of [
      'browser_close_tab',
      'browser_close_window',
      'browser_clear_site_data',
      'browser_delete_cookie',
      'browser_storage_clear',
      'browser_evaluate',
      'browser_click',
      'browser_handle_dialog',
    ])
      expect(destructive.has(name), name).toBe(true)
    for (const name of ['browser_snapshot', 'browser_get_text', 'browser_list_tabs', 'browser_screenshot'])
      expect(destructive.has(name), name).toBe(false)
  })
})

describe('docs/browser-tools.md', () => {
  it('lists every built-in tool with its title and annotations as declared', () => {
    const doc = readFileSync(new URL('../../../docs/browser-tools.md', import.meta.url), 'utf8')
    const yn = (value: boolean | undefined) => (value === undefined ? '' : value ? 'yes' : 'no')
    const rows = new Map<string, string[]>()
    for (const line of doc.split('\n')) {
      const cells = line.split('|').map((cell) => cell.trim())
      const name = /^`((?:browser|extension)_[a-z_]+)`$/.exec(cells[1] ?? '')?.[1]
      if (name && cells.length === 8) rows.set(name, cells.slice(2, 7))
    }
    for (const tool of BROWSER_TOOL_DEFINITIONS) {
      const a = tool.annotations
      expect(rows.get(tool.name), tool.name).toEqual([
        tool.displayName,
        yn(a.readOnlyHint),
        yn(a.destructiveHint),
        yn(a.idempotentHint),
        yn(a.openWorldHint),
      ])
    }
  })
})
