import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { DemoSite } from '../../../examples/demo-site/server.mjs'
import type { BrowserHarness } from '../../helpers/browser'
import { BROWSER_START_TIMEOUT_MS } from '../../helpers/timing'
import { startNotesInExtension, type NotesInExtension } from '../../helpers/notesInExtension'
import type { BuiltPlugin } from '../support/fixturePlugin'
import type { TinyDaemon } from './tinyDaemon'

// MV3 life: Chrome stops idle service workers and `extension.reload` restarts the whole extension.
// Both must come back on their own, reconnect, and keep serving the tabs that were already open.
describe('extension lifecycle', () => {
  let env: NotesInExtension
  let daemon: TinyDaemon
  let browser: BrowserHarness
  let plugin: BuiltPlugin
  let site: DemoSite
  let tab: Page

  beforeAll(async () => {
    env = await startNotesInExtension({ state: (built) => built.state('auto') })
    ;({ plugin, site, daemon, browser } = env)
    tab = await browser.newPage(`${site.url}/login?user=dana`)
    // Ready is reported by tab.stateChanged, or already in tab.syncAll when the worker connected late.
    const name = plugin.state().name
    await daemon.waitFor(
      (f) =>
        (f.method === 'tab.stateChanged' && (f.params as { state: string }).state === 'ready') ||
        (f.method === 'tab.syncAll' &&
          (f.params as { plugins: Record<string, { state: string } | undefined> }).plugins[name]?.state ===
            'ready'),
      20_000,
    )
  }, BROWSER_START_TIMEOUT_MS)
  afterAll(() => env?.close())

  let seq = 0
  const slowCount = async () => {
    const dispatchId = `life${++seq}`
    const since = daemon.frames.length
    const answer = await daemon.request('tool.dispatch', {
      dispatchId,
      plugin: 'notes',
      tool: 'slow_count',
      input: { to: 2, stepMs: 0 },
    })
    const progress = daemon.frames
      .slice(since)
      .filter(
        (f) => f.method === 'tool.progress' && (f.params as { dispatchId: string }).dispatchId === dispatchId,
      )
    return { answer, progress: progress.length }
  }

  it('reloads itself on extension.reload, reconnects, marks open tabs not isolated, and serves them again once reloaded', async () => {
    const before = daemon.connections()
    const since = daemon.frames.length
    daemon.notify('extension.reload', {})
    await expect.poll(() => daemon.connections(), { timeout: 15_000 }).toBe(before + 1)
    await daemon.waitFor((f) => f.method === 'tab.syncAll', 10_000, since)
    // The open document's adapter channel belonged to the extension before the reload: nothing the
    // new extension hears from that page can be trusted, so the tab waits for a reload.
    const last = () => {
      const frame = daemon.frames
        .filter((f) => f.method === 'tab.syncAll' || f.method === 'tab.stateChanged')
        .at(-1)?.params as { plugins?: Record<string, unknown>; plugin?: string } | undefined
      return frame?.plugins ? frame.plugins.notes : frame?.plugin === 'notes' ? frame : undefined
    }
    await expect
      .poll(last, { timeout: 10_000 })
      .toMatchObject({ state: 'unavailable', tabs: [{ ready: false, isolated: false }] })
    const refused = await daemon.request('tool.dispatch', {
      dispatchId: 'life-refused',
      plugin: 'notes',
      tool: 'slow_count',
      input: { to: 2, stepMs: 0 },
    })
    expect(refused.error?.message).toContain('reload its tab')
    await browser.waitForAdapter('notes')
    await tab.reload()
    await expect.poll(last, { timeout: 10_000 }).toMatchObject({ state: 'ready' })
    const { answer, progress } = await slowCount()
    expect(answer.result).toMatchObject({ output: { counted: 2 } })
    expect(progress).toBe(2)
  })

  it('comes back after Chrome stops its service worker, with the open tab still ready', async () => {
    const before = daemon.connections()
    const cdp = await browser.context.browser()?.newBrowserCDPSession()
    if (!cdp) throw new Error('no browser CDP session')
    const { targetInfos } = (await cdp.send('Target.getTargets')) as {
      targetInfos: Array<{ targetId: string; type: string; url: string }>
    }
    const worker = targetInfos.find((t) => t.type === 'service_worker' && t.url.endsWith('/background.js'))
    expect(worker).toBeDefined()
    await cdp.send('Target.closeTarget', { targetId: worker?.targetId ?? '' })
    await expect.poll(() => daemon.isConnected(), { timeout: 10_000 }).toBe(false)
    // Any extension event wakes the worker again; here the user opens the side panel.
    const panel = await browser.openSidePanel()
    await expect.poll(() => daemon.connections(), { timeout: 15_000 }).toBe(before + 1)
    await expect
      .poll(() => panel.getByTestId('connection-status').getAttribute('data-state'), { timeout: 10_000 })
      .toBe('connected')
    await expect
      .poll(() => daemon.frames.filter((f) => f.method === 'tab.syncAll').at(-1)?.params, { timeout: 10_000 })
      .toMatchObject({ plugins: { notes: { state: 'ready', tabs: [{ ready: true }] } } })
    const { answer, progress } = await slowCount()
    expect(answer.result).toMatchObject({ output: { counted: 2 } })
    expect(progress).toBe(2)
    expect(await tab.evaluate(() => document.querySelector('main')?.getAttribute('data-user'))).toBe('dana')
  })
})
