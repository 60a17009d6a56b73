import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { createToolCatalog } from '../../../src/catalog/toolCatalog'
import { BROWSER_TOOLS } from '../../../src/tools/index'
import { compileSchema, schemaProblem } from '../../../src/validation'

/** The built-ins whose result is text (a snapshot, an action's report, a page read) or an image. */
const TEXT_OR_IMAGE = [
  'browser_navigate',
  'browser_go_back',
  'browser_go_forward',
  'browser_reload',
  'browser_snapshot',
  'browser_get_text',
  'browser_get_html',
  'browser_get_markdown',
  'browser_click',
  'browser_type',
  'browser_press_key',
  'browser_select_option',
  'browser_fill_form',
  'browser_screenshot',
  'browser_network_request',
]

const tool = (name: string) => {
  const found = BROWSER_TOOLS.find((t) => t.name === name)
  if (!found) throw new Error(`no built-in tool ${name}`)
  return found
}
const checkOf = (name: string) => {
  const compiled = compileSchema(tool(name).outputSchema!, 'output')
  if (!compiled.ok) throw new Error(compiled.message)
  return compiled.value
}

describe('built-in tool outputs', () => {
  it('declare an object schema the daemon compiles for every tool whose result is one JSON object', () => {
    const declared = BROWSER_TOOLS.filter((t) => t.outputSchema)
    expect(declared.map((t) => t.name).sort()).toEqual(
      BROWSER_TOOLS.map((t) => t.name)
        .filter((name) => !TEXT_OR_IMAGE.includes(name))
        .sort(),
    )
    for (const { name, outputSchema } of declared) {
      expect(outputSchema?.type, name).toBe('object')
      expect(schemaProblem(outputSchema), name).toBeNull()
      expect(compileSchema(outputSchema!, 'output').ok, name).toBe(true)
      // Plain JSON: what tools/list sends is what the daemon checks.
      expect(JSON.parse(JSON.stringify(outputSchema)), name).toEqual(outputSchema)
    }
  })

  it('declare none for text and image results', () => {
    for (const name of TEXT_OR_IMAGE) expect(tool(name).outputSchema, name).toBeUndefined()
  })

  it('accept what the handler returns, with the open dialogs any result may carry', () => {
    const tabs = {
      tabs: [
        {
          tabId: 7,
          windowId: 1,
          url: 'https://example.com/',
          title: 'Example',
          active: true,
          status: 'complete',
          focusedWindow: true,
        },
      ],
      openDialogs: [{ tabId: 7, type: 'alert', message: 'hi', answerWith: 'browser_handle_dialog' }],
    }
    expect(checkOf('browser_list_tabs')(tabs)).toEqual({ ok: true, value: tabs })
    const query = {
      total: 1,
      elements: [
        {
          ref: 'e3',
          tag: 'a',
          role: 'link',
          name: 'Home',
          text: 'Home',
          visible: true,
          attributes: { href: null },
        },
      ],
    }
    expect(checkOf('browser_query')(query).ok).toBe(true)
    expect(checkOf('browser_evaluate')({ value: { any: ['json', 1, null] } }).ok).toBe(true)
    expect(checkOf('browser_evaluate')({ exception: 'ReferenceError: x is not defined' }).ok).toBe(true)
  })

  it('refuse a result of the wrong shape, naming the field', () => {
    const wrong = checkOf('browser_list_tabs')({
      tabs: [{ tabId: '7', windowId: 1, url: '', title: '', active: true, status: '', focusedWindow: true }],
    })
    expect(wrong).toEqual({ ok: false, message: 'tabs.0.tabId must be integer' })
    expect(checkOf('browser_list_tabs')({ tabs: [{ tabId: 7 }] }).ok).toBe(false)
    expect(checkOf('browser_close_tab')('closed').ok).toBe(false)
    expect(checkOf('browser_get_cookies')({ url: 'https://a.example/', cookies: [{ name: 'sid' }] }).ok).toBe(
      false,
    )
  })

  it('are listed by the catalog as outputSchema, and checked on the way out', () => {
    const catalog = createToolCatalog({
      plugins: () => [],
      failedPlugins: () => [],
      browserTools: () => BROWSER_TOOLS,
      permissions: () => ({ browser: { permission: 'auto', groups: ['all'] } }),
      skipPermissions: () => false,
    })
    const listed = new Map(catalog.listed().tools.map((t) => [t.name, t]))
    // browser_evaluate is off unless set by name (its defaultCap).
    expect(listed.size).toBe(BROWSER_TOOLS.length - 1)
    for (const { name, outputSchema } of BROWSER_TOOLS) {
      if (name !== 'browser_evaluate') expect(listed.get(name)?.outputSchema, name).toEqual(outputSchema)
      expect(typeof catalog.get(name)?.checkOutput, name).toBe(outputSchema ? 'function' : 'undefined')
    }
    expect(JSON.parse(catalog.listedJson())).toEqual(catalog.listed())
    expect(catalog.get('browser_close_tab')?.checkOutput?.({ closed: 'seven' }).ok).toBe(false)
    expect(catalog.get('browser_close_tab')?.checkOutput?.({ closed: 7 }).ok).toBe(true)
  })
})

describe('docs/browser-tools.md', () => {
  it('names exactly the built-ins with structured output', () => {
    const doc = readFileSync(new URL('../../../docs/browser-tools.md', import.meta.url), 'utf8')
    const section = doc.split('\n## Structured output\n')[1]?.split('\n## ')[0] ?? ''
    const named = (label: string) => {
      const paragraph = section.split('\n\n').find((p) => p.startsWith(`${label}:`)) ?? ''
      return [...paragraph.matchAll(/`((?:browser|extension)_[a-z_]+)`/g)].map((m) => m[1]).sort()
    }
    expect(named('Structured')).toEqual(
      BROWSER_TOOLS.filter((t) => t.outputSchema)
        .map((t) => t.name)
        .sort(),
    )
    expect(named('Text or image only')).toEqual([...TEXT_OR_IMAGE].sort())
  })
})
