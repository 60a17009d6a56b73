import { describe, expect, it } from 'vitest'
import { createToolCatalog } from '../../../src/catalog/toolCatalog'
import type { PermissionsConfig } from '../../../src/config/permissions'
import { catalogSource, notesPlugin } from '../../helpers/catalogFixture'

const notes = notesPlugin({
  annotations: {
    list_notes: { readOnlyHint: true, openWorldHint: false },
    delete_note: { readOnlyHint: false, destructiveHint: true },
  },
})
const source = (permissions: PermissionsConfig) => catalogSource({ plugins: [notes], permissions })

describe('toolCatalog annotations', () => {
  it('lists each tool with its title and annotations, built-in and plugin alike', () => {
    const listed = createToolCatalog(
      source({
        notes: { permission: 'auto' },
        browser: { tools: { browser_snapshot: 'auto', browser_click: 'ask', browser_close_tab: 'auto' } },
      }),
    ).listed().tools
    expect(listed.find((tool) => tool.name === 'browser_snapshot')?.title).toBe('Page snapshot')
    expect(listed.find((tool) => tool.name === 'browser_snapshot')?.annotations).toEqual({
      title: 'Page snapshot',
      readOnlyHint: true,
    })
    // Hints equal to MCP's defaults (not read-only, destructive, not idempotent, open world) are left out:
    // a client reads an absent hint as its default.
    expect(listed.find((tool) => tool.name === 'browser_click')?.annotations).toEqual({ title: 'Click' })
    expect(listed.find((tool) => tool.name === 'browser_close_tab')?.annotations).toEqual({
      title: 'Close tab',
      idempotentHint: true,
      openWorldHint: false,
    })
    expect(listed.find((tool) => tool.name === 'notes_delete_note')).toMatchObject({
      title: 'Delete note',
      annotations: { title: 'Delete note' },
    })
  })

  it('never lets a read-only hint lower a permission: off stays unlisted, ask still asks', () => {
    const catalog = createToolCatalog(
      source({
        notes: { permission: 'ask', tools: { list_notes: 'off' } },
        browser: { tools: { browser_snapshot: 'ask' } },
      }),
    )
    expect(catalog.get('notes_list_notes')?.permission).toBe('off')
    expect(catalog.listed().tools.map((tool) => tool.name)).not.toContain('notes_list_notes')
    expect(catalog.get('browser_snapshot')?.permission).toBe('ask')
    expect(catalog.listed().tools.find((tool) => tool.name === 'browser_snapshot')?.description).toMatch(
      /^\[asks for approval\] /,
    )
  })

  it('gives the side panel the same hints in the tool states', () => {
    const catalog = createToolCatalog(source({}))
    expect(catalog.pluginStates()[0]?.tools[0]?.annotations).toEqual({
      readOnlyHint: true,
      openWorldHint: false,
    })
    expect(
      catalog.browserToolStates().find((tool) => tool.name === 'browser_close_tab')?.annotations,
    ).toEqual({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
      openWorldHint: false,
    })
  })
})
