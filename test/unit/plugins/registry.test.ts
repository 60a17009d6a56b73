import { describe, expect, it } from 'vitest'
import { findTool, splitToolName } from '../../../src/plugins/registry'
import type { PluginRegistrySnapshot } from '../../../src/plugins/types'
import { loadedPlugin, pluginTool } from '../../helpers/catalogFixture'

const plugin = (name: string, tools: string[]) =>
  loadedPlugin(name, { tools: tools.map((t) => pluginTool(t, t, t)) })

describe('splitToolName', () => {
  it.each([
    ['notes_list_notes', { plugin: 'notes', tool: 'list_notes' }],
    ['my-site_page_info', { plugin: 'my-site', tool: 'page_info' }],
    ['notes', undefined],
    ['_x', undefined],
    ['notes_', undefined],
  ])('%s', (name, expected) => {
    expect(splitToolName(name)).toEqual(expected)
  })
})

describe('findTool', () => {
  const snapshot: PluginRegistrySnapshot = {
    plugins: [plugin('notes', ['list_notes', 'create_note']), plugin('my-site', ['page_info'])],
    failedPlugins: [],
    discoveryErrors: [],
  }
  it('finds a loaded plugin tool by its prefixed name', () => {
    expect(findTool(snapshot, 'my-site_page_info')?.tool.name).toBe('page_info')
    expect(findTool(snapshot, 'notes_create_note')?.plugin.name).toBe('notes')
  })
  it('finds nothing for unknown plugins or tools', () => {
    expect(findTool(snapshot, 'notes_delete_note')).toBeUndefined()
    expect(findTool(snapshot, 'wiki_page_info')).toBeUndefined()
    expect(findTool(snapshot, 'browser_navigate')).toBeUndefined()
  })
})
