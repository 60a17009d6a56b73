import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { DemoSite } from '../../examples/demo-site/server.mjs'
import type { PluginState } from '../../src/protocol/manifest'
import type { BrowserHarness } from '../helpers/browser'
import { BROWSER_START_TIMEOUT_MS } from '../helpers/timing'
import { startNotesInExtension, type NotesInExtension } from '../helpers/notesInExtension'
import type { BuiltPlugin } from '../e2e/support/fixturePlugin'
import type { TinyDaemon } from '../e2e/extension/tinyDaemon'

// The attack: whoever speaks for the daemon on the extension's socket (a process holding the secret,
// a port squatter the extension talked to) sends tool.dispatch for a tool the user switched off. The
// real extension in Chromium refuses it from what the daemon last told it, and the page is untouched.
describe('the extension refuses a tool.dispatch for a tool that is off', () => {
  let env: NotesInExtension
  let daemon: TinyDaemon
  let browser: BrowserHarness
  let plugin: BuiltPlugin
  let site: DemoSite
  let page: Page

  /** The notes plugin with every tool on `auto` except the ones named, which are `off`. */
  const withOff = (...off: string[]): PluginState => {
    const state = plugin.state('auto')
    return {
      ...state,
      tools: state.tools.map((t) => (off.includes(t.name) ? { ...t, permission: 'off' as const } : t)),
    }
  }
  const notes = async (): Promise<unknown[]> =>
    page.evaluate(async () => ((await (await fetch('/api/notes')).json()) as { notes: unknown[] }).notes)
  let seq = 0
  const createNote = (title: string) =>
    daemon.request('tool.dispatch', {
      dispatchId: `attack${++seq}`,
      plugin: 'notes',
      tool: 'create_note',
      input: { title },
    })

  beforeAll(async () => {
    env = await startNotesInExtension({
      state: (built) => {
        plugin = built
        return withOff('create_note')
      },
    })
    ;({ plugin, site, daemon, browser } = env)
    page = await browser.newPage(`${site.url}/login?user=mallory-target`)
    await daemon.waitFor(
      (f) => f.method === 'tab.stateChanged' && (f.params as { state: string }).state === 'ready',
      20_000,
    )
  }, BROWSER_START_TIMEOUT_MS)
  afterAll(() => env?.close())

  it('answers permission_off for a tool that is off in the last sync.full, and the tool does not run', async () => {
    const answer = await createNote('planted by the attacker')
    expect(answer.error).toMatchObject({
      code: -32003,
      data: { code: 'permission_off', category: 'permission' },
    })
    expect(answer.error?.message).toContain('notes_create_note')
    expect(answer.error?.message).toContain('off')
    expect(await notes()).toEqual([])
  })

  it('follows plugins.changed: a tool switched on runs, switched off again it is refused', async () => {
    daemon.notify('plugins.changed', { plugins: [withOff()], failedPlugins: [] })
    const allowed = await createNote('written while on')
    expect(allowed.result).toMatchObject({ output: { note: { title: 'written while on' } } })
    daemon.notify('plugins.changed', { plugins: [withOff('create_note')], failedPlugins: [] })
    const refused = await createNote('written after off')
    expect(refused.error?.data).toMatchObject({ code: 'permission_off' })
    expect((await notes()).map((n) => (n as { title: string }).title)).toEqual(['written while on'])
  })

  it('refuses every tool of a plugin whose new version is not reviewed (its tools are off)', async () => {
    const unreviewed = plugin.state('off')
    daemon.notify('plugins.changed', {
      plugins: [{ ...unreviewed, reviewed: false, version: '9.0.0' }],
      failedPlugins: [],
    })
    const answer = await daemon.request('tool.dispatch', {
      dispatchId: `attack${++seq}`,
      plugin: 'notes',
      tool: 'whoami',
      input: {},
    })
    expect(answer.error?.data).toMatchObject({ code: 'permission_off' })
  })

  it('refuses a built-in tool that is off, and follows its permission in plugins.changed', async () => {
    const listTabs = (permission: 'off' | 'auto') => ({
      name: 'browser_list_tabs',
      displayName: 'List tabs',
      description: 'List open tabs',
      permission,
    })
    daemon.browserTools = [listTabs('off')]
    daemon.resync()
    await daemon.waitFor((f) => f.method === 'tab.syncAll', 10_000, daemon.frames.length)
    const dispatchListTabs = () =>
      daemon.request('tool.dispatch', {
        dispatchId: `attack${++seq}`,
        plugin: 'browser',
        tool: 'browser_list_tabs',
        input: {},
      })
    const refused = await dispatchListTabs()
    expect(refused.error).toMatchObject({ code: -32003, data: { code: 'permission_off' } })
    expect(refused.error?.message).toContain('browser_list_tabs')
    daemon.notify('plugins.changed', {
      plugins: [withOff()],
      failedPlugins: [],
      browserTools: [listTabs('auto')],
    })
    const allowed = await dispatchListTabs()
    expect(JSON.stringify(allowed.result)).toContain('Demo Notes')
    const unknown = await daemon.request('tool.dispatch', {
      dispatchId: `attack${++seq}`,
      plugin: 'browser',
      tool: 'browser_evaluate',
      input: { expression: 'document.cookie' },
    })
    expect(unknown.error?.data).toMatchObject({ code: 'unknown_tool' })
  })

  it('refuses a tool the plugin does not have', async () => {
    daemon.notify('plugins.changed', { plugins: [withOff()], failedPlugins: [] })
    const answer = await daemon.request('tool.dispatch', {
      dispatchId: `attack${++seq}`,
      plugin: 'notes',
      tool: 'export_everything',
      input: {},
    })
    expect(answer.error?.data).toMatchObject({ code: 'unknown_tool' })
  })
})
