import { describe, expect, it } from 'vitest'
import { createToolCatalog } from '../../../src/catalog/toolCatalog'
import { createClientScopeGate } from '../../../src/config/clientScopeGate'
import type { ClientEntry } from '../../../src/config/clients'
import { catalogSource, loadedPlugin, pluginTool } from '../../helpers/catalogFixture'

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
