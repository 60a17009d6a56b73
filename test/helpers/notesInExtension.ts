/**
 * The real extension in Chromium against a scripted daemon (test/e2e/extension/tinyDaemon.ts) that
 * tells it of the example notes plugin, built with `bridge-plugin build` and its adapter installed
 * into the extension; the demo site for its tabs. Resolves once the extension has synced its tabs and
 * registered the adapter. `close()` stops everything it started, each even when another fails to stop;
 * a start that fails part way stops what it had started before it throws.
 *
 * @example
 *   const env = await startNotesInExtension({ state: (plugin) => plugin.state('auto') })
 *   const answer = await env.daemon.request('tool.dispatch', { ... })
 *   await env.close()
 */
import { randomBytes } from 'node:crypto'
import { startDemoSite, type DemoSite } from '../../examples/demo-site/server.mjs'
import type { PluginState } from '../../src/protocol/manifest'
import { startTinyDaemon, type TinyDaemon } from '../e2e/extension/tinyDaemon'
import { buildFixturePlugin, type BuiltPlugin } from '../e2e/support/fixturePlugin'
import { launchBrowser, type BrowserHarness } from './browser'
import { createTeardown } from './teardown'

export interface NotesInExtension {
  plugin: BuiltPlugin
  site: DemoSite
  daemon: TinyDaemon
  browser: BrowserHarness
  close(): Promise<void>
}

export async function startNotesInExtension(opts: {
  /** The plugin as the scripted daemon's sync.full describes it. */
  state: (plugin: BuiltPlugin) => PluginState
  /** The scripted daemon's answers to the extension's requests (method -> result), set before it connects. */
  answers?: Record<string, (params: unknown) => unknown>
}): Promise<NotesInExtension> {
  const teardown = createTeardown()
  try {
    const plugin = teardown.add(await buildFixturePlugin(), (p) => p.remove())
    const site = teardown.add(await startDemoSite({ port: 0 }), (s) => s.close())
    const secret = randomBytes(32).toString('hex')
    const daemon = teardown.add(await startTinyDaemon({ secret, plugins: [opts.state(plugin)] }), (d) =>
      d.close(),
    )
    for (const [method, answer] of Object.entries(opts.answers ?? {})) daemon.answers.set(method, answer)
    const browser = teardown.add(await launchBrowser({ port: daemon.port, secret }), (b) => b.close())
    plugin.installAdapter(browser.extensionDir)
    await daemon.waitFor((f) => f.method === 'tab.syncAll')
    await browser.waitForAdapter(plugin.state().name)
    return { plugin, site, daemon, browser, close: () => teardown.run() }
  } catch (error) {
    await teardown.run().catch(() => undefined)
    throw error
  }
}
