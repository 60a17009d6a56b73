/**
 * A live bridge for the approval attacks: the demo site, the example notes plugin with its tools on
 * `ask`, an agent named `research-agent` on a token of its own, the side panel open, and the plugin's
 * adapter registered, so tabs opened from now on are isolated. Cookies are per host: the demo site on
 * localhost is signed in as another user than on 127.0.0.1, so a call's answer says which tab ran it.
 * `bridge.close()` stops it all.
 */
import type { Page } from 'playwright-core'
import { startDemoSite, type DemoSite } from '../../examples/demo-site/server.mjs'
import { startLiveBridge, type LiveBridge } from './liveBridge'
import type { McpConnection } from './mcpClient'

export interface NotesOnAsk {
  bridge: LiveBridge<DemoSite>
  /** The agent's session. */
  mcp: McpConnection
  /** The side panel, where the approval cards show. */
  panel: Page
}

export async function startNotesOnAsk(): Promise<NotesOnAsk> {
  const bridge = await startLiveBridge({ plugin: {}, site: () => startDemoSite({ port: 0 }) })
  try {
    const mcp = await bridge.connectAs('research-agent')
    const panel = await bridge.browser.openSidePanel()
    const set = await bridge.cli(['config', 'set', 'plugin-permission.notes', 'ask'])
    if (set.code !== 0) throw new Error(`bridge config set exited ${set.code}: ${set.stderr}`)
    await bridge.browser.waitForAdapter('notes')
    return { bridge, mcp, panel }
  } catch (error) {
    await bridge.close().catch(() => undefined)
    throw error
  }
}
