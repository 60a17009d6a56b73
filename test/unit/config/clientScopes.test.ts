import { describe, expect, it } from 'vitest'
import { createToolCatalog } from '../../../src/catalog/toolCatalog'
import {
  builtinGroupOf,
  createClientScopeGate,
  describeScope,
  parseScopeList,
  scopeRefusal,
  toolInScope,
  withoutOtherAgent,
} from '../../../src/config/clientScopes'
import type { ClientEntry } from '../../../src/config/clients'
import { catalogSource, loadedPlugin, pluginTool } from '../../helpers/catalogFixture'

const notes = { fullName: 'notes_list', plugin: 'notes' }
const click = { fullName: 'browser_click', plugin: 'browser' }
const getText = { fullName: 'browser_get_text', plugin: 'browser' }
const siteTool = { fullName: 'site_shop_example_search', plugin: 'site', site: 'https://shop.example' }

describe('clientScopes', () => {
  it('allows everything but other agents’ tabs by default', () => {
    for (const tool of [notes, click, getText, siteTool]) expect(toolInScope({}, tool)).toBe(true)
    expect(scopeRefusal('a', {}, click, { tabId: 3 })).toBeUndefined()
    expect(scopeRefusal('a', {}, click, { tabId: 3, otherAgent: true })).toBe(
      `the client "a" may not act in another agent's tabs: use your own tabs (browser_open_tab); the user can allow it with bridge client set a --other-agent yes`,
    )
    expect(scopeRefusal('a', { otherAgent: true }, click, { otherAgent: true })).toBeUndefined()
  })

  it('limits plugins, built-in groups and sites to the lists given; an empty list allows none', () => {
    const scope = { plugins: ['mail'], builtins: ['reading', 'page'], sites: [] }
    expect(builtinGroupOf('browser_get_text')).toBe('page')
    expect(builtinGroupOf('browser_click')).toBe('input')
    expect(toolInScope(scope, notes)).toBe(false)
    expect(toolInScope(scope, { fullName: 'mail_send', plugin: 'mail' })).toBe(true)
    expect(toolInScope(scope, getText)).toBe(true)
    expect(toolInScope(scope, click)).toBe(false)
    expect(toolInScope(scope, siteTool)).toBe(false)
    expect(scopeRefusal('shopper', scope, notes, {})).toBe(
      'the client "shopper" may not use the plugin "notes": the user has not given it that scope (bridge client set shopper)',
    )
    expect(scopeRefusal('shopper', scope, click, {})).toBe(
      'the client "shopper" may not use the built-in group "input": the user has not given it that scope (bridge client set shopper)',
    )
  })

  it('parses the CLI lists and says what is wrong with a bad one', () => {
    expect(parseScopeList('plugins', 'all')).toEqual({ ok: true, value: undefined })
    expect(parseScopeList('plugins', 'none')).toEqual({ ok: true, value: [] })
    expect(parseScopeList('plugins', 'notes, mail,notes')).toEqual({ ok: true, value: ['notes', 'mail'] })
    expect(parseScopeList('sites', 'HTTPS://Shop.Example/')).toEqual({
      ok: true,
      value: ['https://shop.example'],
    })
    expect(parseScopeList('builtins', 'tabs,reading')).toEqual({ ok: true, value: ['tabs', 'reading'] })
    expect(parseScopeList('builtins', 'tabs,everything')).toMatchObject({ ok: false })
    expect(parseScopeList('sites', 'https://shop.example/path')).toMatchObject({ ok: false })
    expect(parseScopeList('plugins', 'Notes')).toMatchObject({ ok: false })
  })

  it('describes a scope in words and drops otherAgent from a listed schema', () => {
    expect(describeScope({ plugins: ['notes'], builtins: [] })).toEqual([
      'plugins   notes',
      'sites     all',
      'builtins  none',
      'otherAgent no',
    ])
    expect(
      withoutOtherAgent({
        type: 'object',
        properties: { tabId: { type: 'integer' }, otherAgent: { type: 'boolean' } },
      }),
    ).toEqual({ type: 'object', properties: { tabId: { type: 'integer' } } })
  })
})

const plugin = (name: string) => loadedPlugin(name, { tools: [pluginTool('run', 'Run', 'Runs')] })

const token = 'a'.repeat(64)
const entries: ClientEntry[] = [
  { name: 'wide', token, createdAt: '' },
  { name: 'narrow', token, createdAt: '', scope: { plugins: ['mail'], builtins: ['page'] } },
]
const catalog = createToolCatalog(
  catalogSource({
    plugins: [plugin('notes'), plugin('mail')],
    permissions: {
      notes: { permission: 'auto' },
      mail: { permission: 'auto' },
      browser: { permission: 'auto', groups: ['all'] },
    },
  }),
)
const gate = createClientScopeGate({ clients: () => entries, catalog })
const names = (json: string) => (JSON.parse(json) as { tools: { name: string }[] }).tools.map((t) => t.name)
const schemaOf = (json: string, tool: string) =>
  (JSON.parse(json) as { tools: { name: string; inputSchema: { properties?: object } }[] }).tools.find(
    (t) => t.name === tool,
  )?.inputSchema.properties

describe('clientScopeGate', () => {
  it('lists a scoped client only its plugins and groups, without otherAgent', () => {
    const listed = gate.listedJson('narrow')
    expect(names(listed)).toContain('mail_run')
    expect(names(listed)).toContain('browser_get_text')
    expect(names(listed)).not.toContain('notes_run')
    expect(names(listed)).not.toContain('browser_click')
    expect(Object.keys(schemaOf(listed, 'browser_get_text') ?? {})).not.toContain('otherAgent')
    expect(gate.listedJson('narrow')).toBe(listed)
  })

  it('lists everything to a default client but otherAgent, and the catalog’s own text to the CLI', () => {
    const listed = gate.listedJson('wide')
    expect(names(listed)).toEqual(names(catalog.listedJson()))
    expect(Object.keys(schemaOf(listed, 'browser_get_text') ?? {})).not.toContain('otherAgent')
    expect(gate.listedJson('cli')).toBe(catalog.listedJson())
    expect(Object.keys(schemaOf(gate.listedJson('cli'), 'browser_get_text') ?? {})).toContain('otherAgent')
  })

  it('refuses calls out of scope and otherAgent for clients not given it', () => {
    expect(gate.refusal('narrow', 'notes_run', {})).toContain('may not use the plugin "notes"')
    expect(gate.refusal('narrow', 'mail_run', {})).toBeUndefined()
    expect(gate.refusal('wide', 'browser_get_text', { otherAgent: true })).toContain("another agent's tabs")
    expect(gate.refusal('cli', 'browser_get_text', { otherAgent: true })).toBeUndefined()
    expect(gate.refusal('narrow', 'no_such_tool', {})).toBeUndefined()
    expect(gate.describe('wide')).toBeUndefined()
    expect(gate.describe('narrow')).toEqual([
      'plugins   mail',
      'sites     all',
      'builtins  page',
      'otherAgent no',
    ])
  })
})
