// The example notes plugin, built with the real build, running its adapter bundle in a page stub
// against the real demo site: what the extension does in a tab, minus the browser.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { startDemoSite } from '../../../examples/demo-site/server.mjs'
import { buildPlugin } from '../../../src/authoring/buildPlugin'
import type { PageAdapter } from '../../../src/protocol/adapter'
import { copyPlugin, NOTES_PLUGIN_DIR, tempDir } from '../../fixtures/plugins'
import { createPageStub, demoLogin, type PageStub } from '../../fixtures/plugins/pageStub'

let site: Awaited<ReturnType<typeof startDemoSite>>
let tmp: ReturnType<typeof tempDir>
let bundle: string
let page: PageStub
let adapter: PageAdapter

beforeAll(async () => {
  site = await startDemoSite({ port: 0 })
  tmp = tempDir('notes')
  const built = await buildPlugin(copyPlugin(NOTES_PLUGIN_DIR, tmp.dir, 'notes-plugin'))
  bundle = built.adapterFile
})
afterAll(async () => {
  await site?.close()
  tmp?.cleanup()
})
beforeEach(() => {
  page = createPageStub(`${site.url}/`)
  page.inject(bundle)
  adapter = page.adapter('notes')
})

describe('notes plugin adapter', () => {
  it('defines no page global and hands its channel over with one hello', () => {
    expect(adapter).toMatchObject({ name: 'notes', version: '0.1.0', sdkVersion: '1.0.0' })
    expect(page.hellos).toEqual([
      { kind: 'bridge-adapter-channel', plugin: 'notes', version: '0.1.0', sdkVersion: '1.0.0' },
    ])
    expect(page.run(`Object.getOwnPropertyNames(globalThis).filter((k) => /bridge/i.test(k))`)).toEqual([])
  })

  it('opens a second channel when the bundle is injected twice (the extension keeps the first)', async () => {
    page.inject(bundle)
    expect(page.hellos).toHaveLength(2)
    expect(await page.adapter('notes').isReady()).toBe(false)
  })

  it('is ready only when the page shows a signed-in user', async () => {
    expect(await adapter.isReady()).toBe(false)
    page.present.add('main[data-user]')
    expect(await adapter.isReady()).toBe(true)
  })

  it('fails with an auth error when signed out', async () => {
    const result = await adapter.invoke('list_notes', {}, 'd1')
    expect(result).toEqual({
      ok: false,
      error: {
        code: 'http_401',
        message: 'GET /api/notes answered 401 Unauthorized',
        category: 'auth',
        retryable: false,
      },
    })
  })

  it('creates and lists notes with the page cookies, and logs', async () => {
    page.cookie = await demoLogin(site.url, 'bob')
    const created = await adapter.invoke('create_note', { title: 'Buy milk', body: '2 litres' }, 'd2')
    expect(created).toMatchObject({ ok: true, output: { note: { title: 'Buy milk', body: '2 litres' } } })
    const listed = await adapter.invoke('list_notes', { limit: 5 }, 'd3')
    expect(listed).toMatchObject({ ok: true, output: { notes: [{ title: 'Buy milk' }] } })
    expect(
      page.events.filter((e) => e.kind === 'log').map((e) => e.kind === 'log' && [e.level, e.message]),
    ).toEqual([
      ['info', 'created a note'],
      ['info', 'found 1 notes'],
    ])
  })

  it('maps a 404 to the plugin error the tool throws', async () => {
    page.cookie = await demoLogin(site.url)
    expect(await adapter.invoke('delete_note', { id: 999 }, 'd4')).toEqual({
      ok: false,
      error: {
        code: 'no_such_note',
        message: 'there is no note 999; list_notes shows the ids',
        category: 'not_found',
        retryable: false,
      },
    })
  })

  it('reports progress for each step of slow_count', async () => {
    page.cookie = await demoLogin(site.url)
    const result = await adapter.invoke('slow_count', { to: 3, stepMs: 0 }, 'd5')
    expect(result).toEqual({ ok: true, output: { counted: 3 } })
    const progress = page.events.filter((e) => e.kind === 'progress')
    expect(progress).toEqual(
      [1, 2, 3].map((i) => ({
        kind: 'progress',
        dispatchId: 'd5',
        progress: i,
        total: 3,
        message: `counted ${i} of 3`,
      })),
    )
  })

  it('keeps the fetch it found at injection when the page replaces fetch later', async () => {
    page.cookie = await demoLogin(site.url, 'carol')
    page.run(`globalThis.fetch = () => Promise.reject(new Error('page spy'))`)
    expect(await adapter.invoke('whoami', {}, 'd7')).toEqual({ ok: true, output: { user: 'carol' } })
  })

  it('answers an unknown tool without throwing', async () => {
    expect(await adapter.invoke('nope', {}, 'd6')).toEqual({
      ok: false,
      error: { code: 'unknown_tool', message: 'plugin notes has no tool "nope"', category: 'validation' },
    })
  })
})
