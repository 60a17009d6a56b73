import { describe, expect, it } from 'vitest'
import type { PermissionsConfig } from '../../../src/config/permissions'
import {
  browserToolStates,
  findCatalogTool,
  listTools,
  pluginStates,
  type CatalogPlugin,
  type CatalogSource,
} from '../../../src/ws/catalog'
import { createConfigMethods } from '../../../src/ws/configMethods'

const notes: CatalogPlugin = {
  name: 'notes',
  packageName: 'bridge-plugin-notes',
  displayName: 'Notes',
  version: '1.2.0',
  source: 'local',
  path: '/home/u/notes',
  sdkVersion: '1.0.0',
  urlPatterns: ['https://notes.example/*'],
  tools: [
    {
      name: 'list_notes',
      displayName: 'List notes',
      description: 'Lists notes',
      inputSchema: { type: 'object' },
    },
    {
      name: 'delete_note',
      displayName: 'Delete note',
      description: 'Deletes a note',
      inputSchema: { type: 'object' },
    },
  ],
  adapterFile: 'notes.js',
  adapterHash: 'abc',
  validate: () => ({ ok: true }),
}
const navigate = {
  name: 'browser_navigate',
  displayName: 'Navigate',
  description: 'Go',
  inputSchema: { type: 'object' },
}

function source(
  permissions: PermissionsConfig,
  skip = false,
): CatalogSource & { permissionsNow: PermissionsConfig } {
  const s = {
    permissionsNow: permissions,
    plugins: () => [notes],
    failedPlugins: () => [{ path: '/x', error: 'broken' }],
    browserTools: () => [navigate],
    permissions: () => s.permissionsNow,
    skipPermissions: () => skip,
  }
  return s
}

describe('catalog', () => {
  it('lists built-in then plugin tools with their effective permission', () => {
    const tools = listTools(
      source({
        notes: { permission: 'ask', tools: { delete_note: 'off' } },
        browser: { permission: 'auto' },
      }),
    )
    expect(tools.map((t) => [t.fullName, t.plugin, t.key, t.permission])).toEqual([
      ['browser_navigate', 'browser', 'browser_navigate', 'auto'],
      ['notes_list_notes', 'notes', 'list_notes', 'ask'],
      ['notes_delete_note', 'notes', 'delete_note', 'off'],
    ])
    expect(findCatalogTool(source({}), 'notes_list_notes')?.pluginVersion).toBe('1.2.0')
    expect(findCatalogTool(source({}), 'notes_nothing')).toBeUndefined()
  })

  it('describes plugins for the extension, with review state and folder', () => {
    const [state] = pluginStates(source({ notes: { permission: 'auto', reviewedVersion: '1.0.0' } }))
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
    expect(browserToolStates(source({}, true))).toEqual([
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
      catalog: s,
      updateConfig: (mutate) => {
        config = mutate(config) as typeof config
        s.permissionsNow = config.permissions
        return Promise.resolve(config)
      },
      onChanged: () => announced++,
    })
    await expect(
      methods['config.setToolPermission']!({ plugin: 'notes', tool: 'list_notes', permission: 'ask' }),
    ).resolves.toEqual({ ok: true })
    expect(config.permissions).toEqual({
      notes: {
        tools: { list_notes: 'ask' },
        reviewedVersion: '1.2.0',
        reviewedPackage: 'bridge-plugin-notes',
        reviewedAdapterHash: notes.adapterHash,
      },
    })
    await methods['config.setSkipPermissions']!({ enabled: true })
    expect(config).toMatchObject({ skipPermissions: true })
    expect(announced).toBe(2)
    await expect(
      methods['config.setToolPermission']!({ plugin: 'notes', tool: 'nope', permission: 'ask' }),
    ).rejects.toMatchObject({
      code: -32602,
      message: 'plugin "notes" has no tool "nope"',
    })
    const state = (await methods['config.getState']!({})) as {
      failedPlugins: unknown
      skipPermissions: boolean
    }
    expect(state.failedPlugins).toEqual([{ path: '/x', error: 'broken' }])
  })
})
