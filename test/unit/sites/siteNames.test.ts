import { describe, expect, it } from 'vitest'
import { siteToolNames } from '../../../src/sites/siteNames'
import { splitToolName } from '../../../src/protocol/toolNames'

const PLUGIN_TOOL = /^[a-z0-9]+(-[a-z0-9]+)*_[a-z][a-z0-9]*(_[a-z0-9]+)*$/
const names = (tools: { origin: string; name: string }[]) => [...siteToolNames(tools).values()]

describe('siteToolNames', () => {
  it('names a tool by its site and its declared name', () => {
    expect(names([{ origin: 'https://mail.example.com', name: 'search' }])).toEqual([
      'mail-example-com__search',
    ])
    expect(names([{ origin: 'https://mail.example.com:8443', name: 'search' }])).toEqual([
      'mail-example-com-8443__search',
    ])
    // http (the same slug as https) and a `-` in the host (the same slug as a `.`) carry the origin's hash.
    expect(names([{ origin: 'http://127.0.0.1:8080', name: 'add_todo' }])).toEqual([
      expect.stringMatching(/^127-0-0-1-8080_[0-9a-f]{16}__add_todo$/),
    ])
  })

  it('never gives a page the name of a built-in or a plugin tool, whatever it declares', () => {
    const declared = [
      'browser_navigate',
      'notes_list_notes',
      'extension_reload',
      '__proto__',
      'a'.repeat(200),
      'x y\nz',
    ]
    for (const name of names(declared.map((n) => ({ origin: 'https://evil.example', name: n })))) {
      expect(name).toMatch(/^[A-Za-z0-9_-]{1,64}$/)
      expect(name).toContain('__')
      expect(name.startsWith('browser_') || name.startsWith('extension_')).toBe(false)
      expect(PLUGIN_TOOL.test(name)).toBe(false)
      expect(splitToolName(name)?.plugin).not.toMatch(/^(browser|extension)$/)
    }
  })

  it('gives two tools that would share a name a name each, the same whatever the order', () => {
    const tools = [
      { origin: 'https://a-b.example', name: 'go' },
      { origin: 'https://a.b-example', name: 'go' },
      { origin: 'http://a-b.example', name: 'go' },
      { origin: 'https://a-b.example', name: 'g o' },
      { origin: 'https://a-b.example', name: 'g-o' },
    ]
    const forward = siteToolNames(tools)
    const backward = siteToolNames([...tools].reverse())
    expect(new Set(forward.values()).size).toBe(tools.length)
    expect([...forward].sort()).toEqual([...backward].sort())
  })
})
