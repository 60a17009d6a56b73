import { describe, expect, it } from 'vitest'
import { buildSites } from '../../../src/sites/siteTools'
import { SITE_TOOL_LIMITS, type DeclaredSiteTool, type SitesReport } from '../../../src/protocol'

const A = 'https://todo.example'
const B = 'https://off.example'
const tool = (name: string, extra: Partial<DeclaredSiteTool> = {}): DeclaredSiteTool => ({
  name,
  title: '',
  description: `does ${name}`,
  annotations: {},
  ...extra,
})
const report = (origin: string, tools: DeclaredSiteTool[], tabId = 1): SitesReport => ({
  tabs: [{ tabId, url: `${origin}/`, title: 't', frames: [{ frameId: 0, origin, tools }] }],
})

describe('buildSites', () => {
  it('ignores the tools of a site that is off, even when reported', () => {
    const view = buildSites(report(B, [tool('x')]), { [A]: { permission: 'ask' } }, false)
    expect(view.tools).toEqual([])
    expect(view.sites.map((s) => s.origin)).toEqual([A])
  })

  it('makes a tool with an unusable schema unavailable, with the reason', () => {
    const cases: [string | undefined, RegExp][] = [
      ['{"type":"banana"}', /does not describe an object/],
      ['{"type":"object","properties":{"a":{"type":"banana"}}}', /not valid JSON Schema/],
      ['{"type":"object","properties":{"a":{"type":"string","pattern":"(a+)+$"}}}', /regular expression/],
      ['{"type":"object","$ref":"https://evil.example/schema"}', /does not compile|not accept/],
      ['not json', /not JSON/],
      [
        JSON.stringify({
          type: 'object',
          properties: Object.fromEntries(
            Array.from({ length: 200 }, (_, i) => [`p${i}`, { type: 'string' }]),
          ),
        }),
        /more than the 4000 bridge lists for one tool/,
      ],
      [
        '{"type":"object","properties":{"a":{"type":"array","uniqueItems":true}}}',
        /unsafe to check.*maxItems/,
      ],
    ]
    for (const [inputSchema, reason] of cases) {
      const view = buildSites(report(A, [tool('t', { inputSchema })]), { [A]: { permission: 'auto' } }, false)
      expect(view.tools[0]?.unavailable).toMatch(reason)
      expect(view.tools[0]?.validate({})).toMatchObject({ ok: false })
    }
  })

  it('accepts a property that is called "pattern", and formats (which it does not check)', () => {
    const inputSchema =
      '{"type":"object","properties":{"pattern":{"type":"string"},"when":{"type":"string","format":"date"}},"required":["pattern"]}'
    const view = buildSites(
      report(A, [tool('find', { inputSchema })]),
      { [A]: { permission: 'auto' } },
      false,
    )
    expect(view.tools[0]?.unavailable).toBeUndefined()
    expect(view.tools[0]?.validate({ pattern: 'x' })).toMatchObject({ ok: true })
    expect(view.tools[0]?.validate({})).toMatchObject({ ok: false })
  })

  it('keeps a site within its budget in the tool list: tools past it are unavailable', () => {
    const long = 'd'.repeat(SITE_TOOL_LIMITS.descriptionChars)
    const tools = Array.from({ length: 40 }, (_, i) =>
      tool(`t${String(i).padStart(2, '0')}`, { description: long }),
    )
    const view = buildSites(report(A, tools), { [A]: { permission: 'auto' } }, false)
    const available = view.tools.filter((t) => t.unavailable === undefined)
    const spent = available.reduce(
      (n, t) => n + t.description.length + JSON.stringify(t.listedSchema).length,
      0,
    )
    expect(spent).toBeLessThanOrEqual(SITE_TOOL_LIMITS.listedCharsPerSite)
    expect(available.length).toBeGreaterThan(10)
    expect(view.tools.find((t) => t.unavailable !== undefined)?.unavailable).toMatch(/budget/)
  })

  it('runs a tool only in the tabs that declare what the user saw', () => {
    const first = report(A, [tool('t', { description: 'one' })], 1).tabs
    const second = report(A, [tool('t', { description: 'two' })], 2).tabs
    const view = buildSites({ tabs: [...first, ...second] }, { [A]: { permission: 'auto' } }, false)
    expect(view.tools[0]?.tabs.map((t) => t.tabId)).toEqual([1])
  })
})
