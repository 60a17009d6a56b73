import { describe, expect, it } from 'vitest'
import {
  builtinGroupOf,
  describeScope,
  parseScopeList,
  scopeRefusal,
  toolInScope,
  withoutOtherAgent,
} from '../../../src/config/clientScopes'

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
