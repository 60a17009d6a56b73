import { describe, expect, it } from 'vitest'
import { createToolCatalog } from '../../../src/catalog/toolCatalog'
import type { PermissionsConfig } from '../../../src/config/permissions'
import { createConfigMethods } from '../../../src/ws/configMethods'
import { catalogSource, notesPlugin } from '../../helpers/catalogFixture'

const notes = notesPlugin({ version: '1.2.0' })
const navigate = {
  name: 'browser_navigate',
  displayName: 'Navigate',
  description: 'Go',
  inputSchema: { type: 'object' },
}

const source = (permissions: PermissionsConfig, skip = false) =>
  catalogSource({
    plugins: [notes],
    permissions,
    browserTools: [navigate],
    failedPlugins: [{ path: '/x', error: 'broken' }],
    skipPermissions: skip,
  })

describe('toolCatalog', () => {
  it('lists built-in then plugin tools with their effective permission', () => {
    const tools = createToolCatalog(
      source({
        notes: { permission: 'ask', tools: { delete_note: 'off' } },
        browser: { permission: 'auto' },
      }),
    ).tools()
    expect(tools.map((t) => [t.fullName, t.plugin, t.key, t.permission])).toEqual([
      ['browser_navigate', 'browser', 'browser_navigate', 'auto'],
      ['notes_list_notes', 'notes', 'list_notes', 'ask'],
      ['notes_delete_note', 'notes', 'delete_note', 'off'],
    ])
    const catalog = createToolCatalog(source({}))
    expect(catalog.get('notes_list_notes')?.pluginBuild?.version).toBe('1.2.0')
    expect(catalog.get('notes_nothing')).toBeUndefined()
    expect(catalog.pluginOf('notes_nothing')).toBe('notes')
    expect(catalog.pluginOf('browser_navigate')).toBe('browser')
  })

  it('serves tools/list from one cached result until a permission or the skip flag changes', () => {
    const s = source({ notes: { permission: 'ask', tools: { delete_note: 'off' } } })
    const catalog = createToolCatalog(s)
    const first = catalog.listed()
    expect(first.tools).toEqual([
      {
        name: 'notes_list_notes',
        title: 'List notes',
        description: '[asks for approval] Lists notes',
        inputSchema: { type: 'object' },
        annotations: { title: 'List notes' },
      },
    ])
    expect(catalog.listed()).toBe(first)
    expect(catalog.get('notes_list_notes')).toBe(catalog.get('notes_list_notes'))
    // A new permissions snapshot (config.json changed) rebuilds the index once.
    s.permissionsNow = { notes: { permission: 'auto' }, browser: { permission: 'ask' } }
    const second = catalog.listed()
    expect(second).not.toBe(first)
    expect(second.tools.map((t) => [t.name, t.description])).toEqual([
      ['browser_navigate', '[asks for approval] Go'],
      ['notes_list_notes', 'Lists notes'],
      ['notes_delete_note', 'Deletes a note'],
    ])
    expect(catalog.listed()).toBe(second)
  })

  it('validates a built-in tool input against its schema, compiled on first use', () => {
    const catalog = createToolCatalog(source({}))
    const strict = catalog.get('browser_navigate')
    expect(strict?.validate({})).toMatchObject({ ok: true })
    expect(strict?.validate('not an object')).toEqual({ ok: false, message: 'input must be object' })
  })

  it('describes plugins for the extension, with review state and folder', () => {
    const [state] = createToolCatalog(
      source({ notes: { permission: 'auto', reviewedVersion: '1.0.0' } }),
    ).pluginStates()
    expect(state).toMatchObject({
      name: 'notes',
      permission: 'auto',
      reviewed: false,
      path: '/home/u/notes',
      tools: [
        { name: 'list_notes', permission: 'off' },
        { name: 'delete_note', permission: 'off' },
      ],
    })
    expect(createToolCatalog(source({}, true)).browserToolStates()).toEqual([
      { name: 'browser_navigate', displayName: 'Navigate', description: 'Go', permission: 'off' },
    ])
  })
})

describe('config methods', () => {
  it('persists changes through updateConfig and announces them', async () => {
    const s = source({})
    let config = { localPlugins: [], port: 9515, permissions: s.permissionsNow }
    let announced = 0
    const methods = createConfigMethods({
      catalog: createToolCatalog(s),
      updateConfig: (mutate) => {
        config = mutate(config) as typeof config
        s.permissionsNow = config.permissions
        return Promise.resolve(config)
      },
      onChanged: () => announced++,
    })
    await expect(
      methods['config.setToolPermission']({ plugin: 'notes', tool: 'list_notes', permission: 'ask' }),
    ).resolves.toEqual({ ok: true })
    expect(config.permissions).toEqual({
      notes: {
        tools: { list_notes: 'ask' },
        reviewedVersion: '1.2.0',
        reviewedPackage: 'bridge-plugin-notes',
        reviewedAdapterHash: notes.adapterHash,
        reviewedPath: '/home/u/notes',
      },
    })
    await methods['config.setSkipPermissions']({ enabled: true })
    expect(config).toMatchObject({ skipPermissions: true })
    expect(announced).toBe(2)
    await expect(
      methods['config.setToolPermission']({ plugin: 'notes', tool: 'nope', permission: 'ask' }),
    ).rejects.toMatchObject({
      code: -32602,
      message: 'plugin "notes" has no tool "nope"',
    })
    const state = await methods['config.getState']({})
    expect(state.failedPlugins).toEqual([{ path: '/x', error: 'broken' }])
  })
})
