import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { DemoSite } from '../../../examples/demo-site/server.mjs'
import type { BrowserHarness } from '../../helpers/browser'
import { BROWSER_START_TIMEOUT_MS } from '../../helpers/timing'
import { startNotesInExtension, type NotesInExtension } from '../../helpers/notesInExtension'
import type { BuiltPlugin } from '../support/fixturePlugin'
import type { Frame, TinyDaemon } from './tinyDaemon'

// Tab tracking and tool dispatch in real Chromium with the example notes plugin (built with
// bridge-plugin) on the demo site, against a scripted daemon that records what the extension sends.
describe('extension tabs and dispatch', () => {
  let env: NotesInExtension
  let daemon: TinyDaemon
  let browser: BrowserHarness
  let plugin: BuiltPlugin
  let site: DemoSite

  beforeAll(async () => {
    env = await startNotesInExtension({ state: (built) => built.state('auto') })
    ;({ plugin, site, daemon, browser } = env)
  }, BROWSER_START_TIMEOUT_MS)
  afterAll(() => env?.close())

  const lastState = (): Frame | undefined =>
    daemon.frames.filter((f) => f.method === 'tab.stateChanged').at(-1)
  const stateOf = () => (lastState()?.params as { state?: string } | undefined)?.state
  const tabsOf = () =>
    (
      lastState()?.params as
        { tabs: Array<{ tabId: number; url: string; ready: boolean; rank?: number }> } | undefined
    )?.tabs ?? []
  let dispatchSeq = 0
  const dispatch = (tool: string, input: unknown, extra: Record<string, unknown> = {}) =>
    daemon.request('tool.dispatch', {
      dispatchId: `d${++dispatchSeq}`,
      plugin: 'notes',
      tool,
      input,
      ...extra,
    })

  let first: Page
  it('reports the plugin closed, then unavailable on a signed-out page, then ready after login', async () => {
    const sync = daemon.frames.find((f) => f.method === 'tab.syncAll')
    expect(sync?.params).toMatchObject({ plugins: { notes: { state: 'closed', tabs: [] } } })
    first = await browser.newPage(site.url)
    await expect.poll(stateOf, { timeout: 10_000 }).toBe('unavailable')
    await first.goto(`${site.url}/login?user=alice`)
    await expect.poll(stateOf, { timeout: 10_000 }).toBe('ready')
    const { tabs } = lastState()?.params as { tabs: Array<{ url: string; title: string; ready: boolean }> }
    expect(tabs).toHaveLength(1)
    expect(tabs[0]).toMatchObject({ url: `${site.url}/`, ready: true })
  })

  it('runs a tool in the page and returns its output', async () => {
    const answer = await dispatch('whoami', {})
    // The extension names the origin the output was read on (the data-flow guard's label).
    expect(answer.result).toMatchObject({ output: { user: 'alice' }, origins: [new URL(site.url).origin] })
  })

  it('relays progress of the running call and batched plugin logs', async () => {
    const since = daemon.frames.length
    const answer = await dispatch('slow_count', { to: 3, stepMs: 0 })
    expect(answer.result).toMatchObject({ output: { counted: 3 } })
    const id = `d${dispatchSeq}`
    await daemon.waitFor(
      (f) => f.method === 'tool.progress' && (f.params as { progress: number }).progress === 3,
      5_000,
      since,
    )
    const frames = daemon.frames.slice(since)
    const answerAt = frames.findIndex((f) => f.id === answer.id && f.method === undefined)
    // Every progress report reaches the daemon before the result.
    expect(frames.findLastIndex((f) => f.method === 'tool.progress')).toBeLessThan(answerAt)
    const progress = frames.filter((f) => f.method === 'tool.progress').map((f) => f.params)
    expect(progress).toEqual([
      { dispatchId: id, progress: 1, total: 3, message: 'counted 1 of 3' },
      { dispatchId: id, progress: 2, total: 3, message: 'counted 2 of 3' },
      { dispatchId: id, progress: 3, total: 3, message: 'counted 3 of 3' },
    ])
    const log = await daemon.waitFor((f) => f.method === 'plugin.log', 5_000, since)
    expect((log.params as { entries: unknown[] }).entries).toContainEqual(
      // The entry names the call whose ctx wrote it: the daemon sends it to that call's client only.
      expect.objectContaining({
        plugin: 'notes',
        dispatchId: id,
        level: 'debug',
        message: 'done counting',
        data: { to: 3 },
      }),
    )
  })

  it('returns a tool failure as -32003 with the plugin’s code and category', async () => {
    const answer = await dispatch('delete_note', { id: 999 })
    expect(answer.error?.code).toBe(-32003)
    expect(answer.error?.message).toContain('there is no note 999')
    expect(answer.error?.data).toEqual({ code: 'no_such_note', category: 'not_found', retryable: false })
  })

  it('runs a call that names its tab only there, and answers -32001 when that tab is gone, elsewhere or not ready', async () => {
    const other = await browser.newPage(`${site.url.replace('127.0.0.1', 'localhost')}/login?user=bob`)
    await expect.poll(() => tabsOf().filter((t) => t.ready).length, { timeout: 10_000 }).toBe(2)
    const bobTab = tabsOf().find((t) => t.url.includes('localhost'))?.tabId
    await first.bringToFront()
    // Alice's tab is the active one, so an unnamed call would run there.
    expect((await dispatch('whoami', {}, { tabId: bobTab })).result).toMatchObject({
      output: { user: 'bob' },
    })

    await other.evaluate(() => document.querySelector('main[data-user]')?.removeAttribute('data-user'))
    const notReady = await dispatch('whoami', {}, { tabId: bobTab })
    expect(notReady.error?.code).toBe(-32001)
    expect(notReady.error?.message).toContain(`tab ${bobTab} is no longer ready for Demo Notes`)

    await other.goto('about:blank')
    await expect.poll(() => tabsOf().length, { timeout: 10_000 }).toBe(1)
    const elsewhere = await dispatch('whoami', {}, { tabId: bobTab })
    expect(elsewhere.error?.code).toBe(-32001)
    expect(elsewhere.error?.message).toContain('is closed or no longer on a Demo Notes page')

    await other.close()
    const gone = await dispatch('whoami', {}, { tabId: bobTab })
    expect(gone.error?.code).toBe(-32001)
    expect(gone.error?.message).toContain('runs only in the tab it was approved for')
  })

  it('runs in the active tab first and falls back to the next ready tab when that one turns out not ready', async () => {
    // Cookies are per host: the same site on localhost is signed in as another user, so the answer
    // says which tab ran the call.
    const second = await browser.newPage(`${site.url.replace('127.0.0.1', 'localhost')}/login?user=bob`)
    await expect.poll(() => tabsOf().length, { timeout: 10_000 }).toBe(2)
    await expect.poll(() => tabsOf().every((t) => t.ready), { timeout: 10_000 }).toBe(true)
    const firstUrl = `${site.url}/`
    // The reports rank the ready tabs as a call would pick them: the daemon chooses by that rank.
    const ranks = () => tabsOf().map((t) => [t.url === firstUrl ? 'alice' : 'bob', t.rank])
    await first.bringToFront()
    await expect.poll(ranks).toEqual([
      ['alice', 0],
      ['bob', 1],
    ])
    expect((await dispatch('whoami', {})).result).toMatchObject({ output: { user: 'alice' } })
    await second.bringToFront()
    await expect.poll(ranks).toEqual([
      ['alice', 1],
      ['bob', 0],
    ])
    expect((await dispatch('whoami', {})).result).toMatchObject({ output: { user: 'bob' } })
    await first.bringToFront()
    // The active tab stops being ready without a navigation the extension could notice.
    await first.evaluate(() => document.querySelector('main[data-user]')?.removeAttribute('data-user'))
    expect((await dispatch('whoami', {})).result).toMatchObject({ output: { user: 'bob' } })
    await expect.poll(() => tabsOf().find((t) => t.url === firstUrl)?.ready).toBe(false)
    expect(tabsOf().find((t) => t.url === firstUrl)?.rank).toBeUndefined()
    await second.close()
  })

  it('answers -32002 when matching tabs exist but none is ready, and -32001 when none is open', async () => {
    await expect.poll(stateOf, { timeout: 10_000 }).toBe('unavailable')
    const unavailable = await dispatch('whoami', {})
    expect(unavailable.error?.code).toBe(-32002)
    expect(unavailable.error?.message).toContain('not ready')
    await first.close()
    await expect.poll(stateOf, { timeout: 10_000 }).toBe('closed')
    const closed = await dispatch('whoami', {})
    expect(closed.error?.code).toBe(-32001)
    expect(closed.error?.message).toContain('no open tab matches Demo Notes')
  })

  it('keeps a tab that runs an older plugin build out of dispatch until it reloads', async () => {
    const tab = await browser.newPage(`${site.url}/`)
    await expect.poll(stateOf, { timeout: 10_000 }).toBe('ready')
    daemon.notify('plugins.changed', {
      plugins: [{ ...plugin.state('auto'), adapterHash: 'b'.repeat(64) }],
      failedPlugins: [],
    })
    await expect.poll(stateOf, { timeout: 10_000 }).toBe('unavailable')
    const answer = await dispatch('whoami', {})
    expect(answer.error?.code).toBe(-32002)
    expect(answer.error?.message).toContain('reload its tab')
    await browser.waitForAdapter('notes')
    await tab.reload()
    await expect.poll(stateOf, { timeout: 10_000 }).toBe('ready')
    expect((await dispatch('whoami', {})).result).toMatchObject({ output: { user: 'alice' } })
    await tab.close()
  })

  it('reloads the tabs of a plugin rebuilt in dev mode (plugin.update)', async () => {
    const tab = await browser.newPage(`${site.url}/`)
    await expect.poll(stateOf, { timeout: 10_000 }).toBe('ready')
    await tab.evaluate(() => ((window as unknown as { beforeUpdate: boolean }).beforeUpdate = true))
    daemon.notify('plugin.update', { ...plugin.state('auto'), adapterHash: 'c'.repeat(64) })
    await expect
      .poll(
        () => tab.evaluate(() => (window as unknown as { beforeUpdate?: boolean }).beforeUpdate ?? false),
        { timeout: 10_000 },
      )
      .toBe(false)
    await expect.poll(stateOf, { timeout: 10_000 }).toBe('ready')
    expect((await dispatch('whoami', {})).result).toMatchObject({ output: { user: 'alice' } })
    await tab.close()
  })

  it('answers malformed daemon requests with JSON-RPC errors and keeps working', async () => {
    const bad = await daemon.request('tool.dispatch', { plugin: 'notes', tool: 'whoami' })
    expect(bad.error?.code).toBe(-32602)
    const unknown = await daemon.request('tool.teleport', {})
    expect(unknown.error?.code).toBe(-32601)
    const unknownPlugin = await daemon.request('tool.dispatch', {
      dispatchId: 'x1',
      plugin: 'nope',
      tool: 'a',
      input: {},
    })
    expect(unknownPlugin.error).toMatchObject({ code: -32003, data: { code: 'unknown_tool' } })
    expect(daemon.isConnected()).toBe(true)
  })
})
