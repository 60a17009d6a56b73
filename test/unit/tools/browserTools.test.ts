import { readdirSync, readFileSync } from 'node:fs'
import { Ajv } from 'ajv'
import { describe, expect, it } from 'vitest'
import { BROWSER_PLUGIN, TOOL_NAME_PATTERN } from '../../../src/protocol/constants'
import {
  BROWSER_TOOLS,
  BROWSER_TOOL_GROUPS,
  TOOL_NAMES_BY_GROUP,
  BROWSER_TOOL_NAMES,
  browserToolDefaultCap,
  isBrowserToolName,
} from '../../../src/tools/index'

// The daemon validates inputs with ajv in strict mode; every schema must compile there.
const ajv = new Ajv({ strict: true, allErrors: true, useDefaults: false })
const validatorFor = (name: string) => {
  const tool = BROWSER_TOOLS.find((t) => t.name === name)
  if (!tool) throw new Error(`no tool ${name}`)
  return ajv.compile(tool.inputSchema)
}

describe('BROWSER_TOOLS', () => {
  it('offers the tools agents need without a plugin', () => {
    for (const name of [
      'browser_list_tabs',
      'browser_open_tab',
      'browser_close_tab',
      'browser_focus_tab',
      'browser_navigate',
      'browser_go_back',
      'browser_go_forward',
      'browser_reload',
      'browser_snapshot',
      'browser_click',
      'browser_type',
      'browser_press_key',
      'browser_select_option',
      'browser_hover',
      'browser_scroll',
      'browser_get_text',
      'browser_get_html',
      'browser_wait_for',
      'browser_screenshot',
      'browser_console_logs',
      'browser_network_start',
      'browser_network_stop',
      'browser_network_requests',
      'browser_network_export_har',
      'browser_get_cookies',
      'browser_local_storage_get',
      'browser_handle_dialog',
      'browser_list_downloads',
      'extension_get_state',
      'extension_get_logs',
      'extension_reload',
    ])
      expect(BROWSER_TOOL_NAMES).toContain(name)
  })

  it('offers page script evaluation only as browser_evaluate, off unless enabled by name', () => {
    expect(BROWSER_TOOL_NAMES.filter((n) => /eval|script|exec/.test(n))).toEqual(['browser_evaluate'])
    expect(browserToolDefaultCap('browser_evaluate')).toBe('off')
    expect(browserToolDefaultCap('browser_clear_site_data')).toBe('ask')
  })

  it('offers at least 65 tools, each taking a tabId also taking otherAgent', () => {
    expect(BROWSER_TOOL_NAMES.length).toBeGreaterThanOrEqual(65)
    for (const tool of BROWSER_TOOLS) {
      const props = (tool.inputSchema.properties ?? {}) as Record<string, unknown>
      expect('otherAgent' in props, tool.name).toBe('tabId' in props)
    }
  })

  it('names every tool browser_* or extension_* with a valid base name, each once', () => {
    expect(new Set(BROWSER_TOOL_NAMES).size).toBe(BROWSER_TOOL_NAMES.length)
    for (const name of BROWSER_TOOL_NAMES) {
      expect(name).toMatch(/^(browser|extension)_/)
      expect(name).toMatch(TOOL_NAME_PATTERN)
      expect(name.startsWith(`${BROWSER_PLUGIN}_`) || name.startsWith('extension_')).toBe(true)
    }
  })

  it('gives every tool a display name and a description written for an agent', () => {
    for (const tool of BROWSER_TOOLS) {
      expect(tool.displayName.length, tool.name).toBeGreaterThan(2)
      expect(tool.description.length, tool.name).toBeGreaterThan(60)
      expect(tool.description, tool.name).toMatch(/Returns|returns/)
    }
  })

  it('exports plain JSON Schema objects that ajv compiles in strict mode', () => {
    for (const tool of BROWSER_TOOLS) {
      expect(tool.inputSchema.type, tool.name).toBe('object')
      expect(JSON.parse(JSON.stringify(tool.inputSchema)), tool.name).toEqual(tool.inputSchema)
      expect(Object.getOwnPropertySymbols(tool.inputSchema), tool.name).toEqual([])
      expect(() => ajv.compile(tool.inputSchema), tool.name).not.toThrow()
    }
  })

  it('keeps the top level of each schema a plain object (no anyOf/oneOf), as MCP clients expect', () => {
    for (const tool of BROWSER_TOOLS) {
      expect(
        Object.keys(tool.inputSchema).filter((k) => /^(anyOf|oneOf|allOf|not)$/.test(k)),
        tool.name,
      ).toEqual([])
    }
  })

  it('describes every property so agents know what to pass; the shared tabId and otherAgent once, in browser_list_tabs', () => {
    for (const tool of BROWSER_TOOLS) {
      const props = (tool.inputSchema.properties ?? {}) as Record<string, { description?: string }>
      const required = (tool.inputSchema.required ?? []) as string[]
      for (const [key, prop] of Object.entries(props)) {
        const shared = key === 'otherAgent' || (key === 'tabId' && !required.includes('tabId'))
        if (shared) expect(prop.description, `${tool.name}.${key}`).toBeUndefined()
        else expect(prop.description, `${tool.name}.${key}`).toBeTruthy()
      }
    }
    const listTabs = BROWSER_TOOLS.find((t) => t.name === 'browser_list_tabs')!
    expect(listTabs.description).toContain("Every tool's tabId is one of these (default: the active tab)")
    expect(listTabs.description).toContain(
      "otherAgent: true lets a tool act in a tab of another agent's group",
    )
  })

  it('accepts typical calls and rejects wrong ones', () => {
    expect(validatorFor('browser_navigate')({ url: 'https://example.com/a?b=1' })).toBe(true)
    expect(validatorFor('browser_navigate')({ url: 'about:blank', tabId: 4 })).toBe(true)
    for (const url of [
      'javascript:alert(1)',
      'file:///etc/passwd',
      'chrome://settings',
      'data:text/html,x',
      'example.com',
    ])
      expect(validatorFor('browser_navigate')({ url }), url).toBe(false)
    expect(validatorFor('browser_click')({ ref: 'e12' })).toBe(true)
    expect(validatorFor('browser_click')({ ref: '12' })).toBe(false)
    expect(validatorFor('browser_click')({ selector: '#save', button: 'middle' })).toBe(true)
    expect(validatorFor('browser_type')({ ref: 'e3' })).toBe(false)
    expect(validatorFor('browser_close_tab')({})).toBe(false)
    expect(validatorFor('browser_close_tab')({ tabId: -1 })).toBe(false)
    expect(validatorFor('browser_handle_dialog')({ accept: true, promptText: 'yes' })).toBe(true)
    expect(validatorFor('browser_get_text')({ maxLength: 10 })).toBe(false)
    expect(validatorFor('browser_select_option')({ selector: 'select', values: [] })).toBe(false)
    expect(validatorFor('browser_wait_for')({ selector: '#x', state: 'gone' })).toBe(false)
  })

  it('accepts key names and combinations for browser_press_key', () => {
    const v = validatorFor('browser_press_key')
    for (const key of ['Enter', 'a', 'Control+a', 'Shift+Tab', 'Control+Shift+ArrowLeft', 'Control++', '+'])
      expect(v({ key }), key).toBe(true)
    for (const key of ['', 'Control+', 'a+b+']) expect(v({ key }), key).toBe(false)
  })

  it('recognises its own names', () => {
    expect(isBrowserToolName('browser_click')).toBe(true)
    expect(isBrowserToolName('notes_list_notes')).toBe(false)
  })
})

describe('docs/browser-tools.md', () => {
  it('documents every built-in tool', () => {
    const doc = readFileSync(new URL('../../../docs/browser-tools.md', import.meta.url), 'utf8')
    expect(BROWSER_TOOL_NAMES.filter((name) => !doc.includes(`\`${name}\``))).toEqual([])
  })
})

describe('end-to-end coverage', () => {
  it('calls every built-in tool in at least one real-Chromium test', () => {
    const dir = new URL('../../e2e/builtins/', import.meta.url)
    const tests = readdirSync(dir)
      .filter((f) => f.endsWith('.test.ts'))
      .map((f) => readFileSync(new URL(f, dir), 'utf8'))
      .join('\n')
    expect(BROWSER_TOOL_NAMES.filter((name) => !tests.includes(`'${name}'`))).toEqual([])
  })
})

describe('TOOL_NAMES_BY_GROUP', () => {
  it('names every tool of every group, as the definitions do (the side panel reads it)', () => {
    expect(
      Object.fromEntries(
        Object.entries(BROWSER_TOOL_GROUPS).map(([group, tools]) => [
          group,
          Object.values(tools)
            .map((t: { name: string }) => t.name)
            .sort(),
        ]),
      ),
    ).toEqual(
      Object.fromEntries(
        Object.entries(TOOL_NAMES_BY_GROUP).map(([group, names]) => [group, [...names].sort()]),
      ),
    )
  })
})
