import { execFile } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startDemoSite, type DemoSite } from '../../examples/demo-site/server.mjs'
import { daemonEnv, ROOT } from '../helpers/daemon'
import { startLiveBridge, type LiveBridge } from '../helpers/liveBridge'
import type { McpConnection } from '../helpers/mcpClient'
import { BROWSER_START_TIMEOUT_MS, scaled } from '../helpers/timing'

const run = promisify(execFile)
/** A rebuild reaching an open tab: the build, the daemon's reload, the tab's reload (limits for something stuck). */
const REBUILD_STEP_TIMEOUT_MS = scaled(60_000)

// The plugin author's loop under a normal daemon (`bridge start`, not --dev): edit, `bridge-plugin
// build`, and the tab that is already open answers with the new code, with no reload by hand; the side
// panel says what happened to the tab.
describe('the plugin edit loop', () => {
  let bridge: LiveBridge<DemoSite>
  let mcp: McpConnection
  let tab: Page
  let panel: Page

  beforeAll(async () => {
    bridge = await startLiveBridge({
      plugin: {},
      site: () => startDemoSite({ port: 0 }),
      config: () => ({ permissions: { notes: { permission: 'auto' } } }),
    })
    mcp = await bridge.connect()
    tab = await bridge.browser.newPage(`${bridge.site.url}/login?user=alice`)
    panel = await bridge.browser.openSidePanel()
  }, BROWSER_START_TIMEOUT_MS)
  afterAll(() => bridge?.close())

  const whoami = async (): Promise<unknown> => {
    const result = await mcp.client.callTool({ name: 'notes_whoami', arguments: {} })
    return result.isError ? result.content : result.structuredContent
  }

  /** Edits the example plugin's whoami in the built copy and runs `bridge-plugin build` as its author. */
  const editAndBuild = async (prefix: string): Promise<void> => {
    const dir = bridge.plugin?.dir ?? ''
    const file = join(dir, 'src', 'index.ts')
    const source = readFileSync(file, 'utf8')
    const edited = source.replace(
      "handle: (_input, ctx) => ctx.fetchJSON<{ user: string }>('/api/me'),",
      `handle: async (_input, ctx) => ({ user: '${prefix}' + (await ctx.fetchJSON<{ user: string }>('/api/me')).user }),`,
    )
    expect(edited).not.toBe(source)
    writeFileSync(file, edited)
    const cli = join(ROOT, 'dist/cli/bridgePlugin.js')
    await run(process.execPath, [cli, 'build', '--dir', dir, '--port', String(bridge.daemon.port)], {
      cwd: dir,
      env: daemonEnv(bridge.configDir, 'node'),
      timeout: REBUILD_STEP_TIMEOUT_MS,
    })
  }

  it(
    'answers with the rebuilt code in the tab that was open, and the panel says the tab was reloaded for it',
    async () => {
      await expect.poll(() => bridge.readyTabs('notes'), { timeout: scaled(30_000) }).toBe(1)
      expect(await whoami()).toEqual({ user: 'alice' })
      await tab.evaluate(() => ((window as unknown as { beforeRebuild: boolean }).beforeRebuild = true))
      // Every text the panel's notice shows on the way, in order.
      await panel.evaluate(() => {
        const seen: string[] = []
        ;(window as unknown as { noticeTexts: string[] }).noticeTexts = seen
        new MutationObserver(() => {
          const text = document.querySelector('[data-testid="rebuild-notice"]')?.textContent ?? ''
          if (text && seen.at(-1) !== text) seen.push(text)
        }).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true })
      })
      await editAndBuild('rebuilt ')
      await expect.poll(whoami, { timeout: REBUILD_STEP_TIMEOUT_MS }).toEqual({ user: 'rebuilt alice' })
      // The page was loaded again (a running document never gets new adapter code).
      expect(await tab.evaluate(() => (window as unknown as { beforeRebuild?: boolean }).beforeRebuild)).toBe(
        undefined,
      )
      const notice = panel.getByTestId('plugin-notes').getByTestId('rebuild-notice')
      await expect
        .poll(() => notice.getAttribute('data-state'), { timeout: REBUILD_STEP_TIMEOUT_MS })
        .toBe('updated')
      expect(await notice.innerText()).toMatch(/^rebuilt: updated, 1 tab reloaded with the new build/)
      const texts = await panel.evaluate(() => (window as unknown as { noticeTexts: string[] }).noticeTexts)
      expect(texts[0]).toMatch(/^rebuilt: reloading 1 tab so it starts with the new build/)
      expect((await bridge.health()).mode).toBe('production')
    },
    3 * REBUILD_STEP_TIMEOUT_MS,
  )
})
