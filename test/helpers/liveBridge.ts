/**
 * The whole product as a user runs it, for end-to-end tests: a site to work on, the real daemon
 * process, Chromium with the real extension (connected before this resolves), optionally a plugin
 * built with `bridge-plugin build`, and MCP sessions on the real SDK client. One per test file.
 * `close()` stops everything it started, the newest first, each even when another fails to stop; a
 * start that fails part way stops what it had started before it throws.
 *
 * @example
 *   const bridge = await startLiveBridge({ plugin: {}, site: () => startDemoSite({ port: 0 }) })
 *   const mcp = await bridge.connect()
 *   await bridge.close()
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { HealthPayload, PluginDetail } from '../../src/http/health'
import { buildFixturePlugin, type BuiltPlugin } from '../e2e/support/fixturePlugin'
import { runCli, type CliResult } from '../integration/cli/runCli'
import { launchBrowser, type BrowserHarness } from './browser'
import { startDaemon, tempConfigDir, type RunningDaemon } from './daemon'
import { connectMcp, type McpConnection } from './mcpClient'
import { createTeardown } from './teardown'
import { scaled } from './timing'

/** How long the extension may take to connect to a fresh daemon on a loaded machine. */
const EXTENSION_CONNECT_TIMEOUT_MS = scaled(30_000)

export interface LiveBridgeOptions<S extends { close(): Promise<void> }> {
  /** Starts the site the tests work on (it is started first, so `config` can name its origins). */
  site: () => Promise<S>
  /**
   * `cli` (default): `bridge start`, which installs the extension into `<config>/extension`, and
   * Chromium loads that folder. `server`: `node dist/server.js` with an empty `<config>/extension`,
   * and Chromium loads a copy of dist/extension given the daemon's port and secret.
   */
  via?: 'cli' | 'server'
  /** Builds a plugin (default: the example notes plugin) and registers it in the config before the daemon starts. */
  plugin?: { source?: string }
  /**
   * Fields written over config.json before the daemon starts: over what the plugin's build registered,
   * or else over a new config of no plugins on the default port (`{ localPlugins: [], port: 9515 }`).
   */
  config?: (ctx: { configDir: string; site: S }) => Record<string, unknown>
  /** Extra environment of the daemon; a value of undefined removes the variable. */
  env?: Record<string, string | undefined>
  /** Chromium with WebMCP on (sites' own tools). */
  webmcp?: boolean
}

export interface LiveBridge<S> {
  configDir: string
  site: S
  /** The plugin built for `options.plugin`. */
  plugin: BuiltPlugin | undefined
  daemon: RunningDaemon
  browser: BrowserHarness
  /** `bridge <args> --port <the daemon's>` with this config, as a user types it. */
  cli(args: string[]): Promise<CliResult>
  /** `bridge client add <name> --json <flags>`: the new client's token. */
  addClient(name: string, flags?: string[]): Promise<string>
  /** An MCP session named `name`, on `token` or else the daemon's own secret; `close()` ends it. */
  connect(opts?: { name?: string; token?: string }): Promise<McpConnection>
  /** `addClient(name, flags)`, then a session as that client. */
  connectAs(name: string, flags?: string[]): Promise<McpConnection>
  /** The daemon's full `/health`. */
  health(): Promise<HealthPayload>
  /** A plugin's entry in `/health`. */
  pluginDetail(name: string): Promise<PluginDetail | undefined>
  /** How many of a plugin's tabs say their page is ready. */
  readyTabs(name: string): Promise<number>
  /** Stops `thing` with the rest at `close()`: for what a test starts on top (another client, a server). */
  own<T>(thing: T, stop: (thing: T) => unknown): T
  close(): Promise<void>
}

export async function startLiveBridge<S extends { close(): Promise<void> }>(
  options: LiveBridgeOptions<S>,
): Promise<LiveBridge<S>> {
  const teardown = createTeardown()
  try {
    const configDir = teardown.add(tempConfigDir(), (dir) => rmSync(dir, { recursive: true, force: true }))
    const plugin = options.plugin
      ? teardown.add(await buildFixturePlugin({ ...options.plugin, configDir }), (p) => p.remove())
      : undefined
    const site = teardown.add(await options.site(), (s) => s.close())
    if (options.config) writeConfig(configDir, options.config({ configDir, site }))
    const via = options.via ?? 'cli'
    if (via === 'server') mkdirSync(join(configDir, 'extension'), { recursive: true })
    const daemon = teardown.add(
      await startDaemon({ via, configDir, ...(options.env ? { env: options.env } : {}) }),
      (d) => d.stop(),
    )
    const webmcp = options.webmcp ?? false
    const browser = teardown.add(
      await launchBrowser(
        via === 'cli'
          ? { extensionDir: join(configDir, 'extension'), webmcp }
          : { port: daemon.port, secret: daemon.secret, webmcp },
      ),
      (b) => b.close(),
    )
    const health = async () => (await (await daemon.fetch('/health')).json()) as HealthPayload
    await waitForExtension(health)
    const cli = (args: string[]) => runCli([...args, '--port', String(daemon.port)], configDir)
    const addClient = async (name: string, flags: string[] = []) => {
      const added = await cli(['client', 'add', name, '--json', ...flags])
      if (added.code !== 0) throw new Error(`bridge client add ${name} exited ${added.code}: ${added.stderr}`)
      return (JSON.parse(added.stdout) as { token: string }).token
    }
    const connect = async (opts: { name?: string; token?: string } = {}) =>
      teardown.add(
        await connectMcp({ url: daemon.url, secret: opts.token ?? daemon.secret }, opts.name),
        (c) => c.close(),
      )
    const pluginDetail = async (name: string) => (await health()).pluginDetails.find((p) => p.name === name)
    return {
      configDir,
      site,
      plugin,
      daemon,
      browser,
      cli,
      addClient,
      connect,
      connectAs: async (name, flags) => connect({ name, token: await addClient(name, flags) }),
      health,
      pluginDetail,
      readyTabs: async (name) => (await pluginDetail(name))?.tabs.filter((t) => t.ready).length ?? 0,
      own: (thing, stop) => teardown.add(thing, stop),
      close: () => teardown.run(),
    }
  } catch (error) {
    await teardown.run().catch(() => undefined)
    throw error
  }
}

/** Writes `fields` over the config file (or a new one), private to the user as the daemon keeps it. */
function writeConfig(configDir: string, fields: Record<string, unknown>): void {
  const file = join(configDir, 'config.json')
  const current = existsSync(file)
    ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>)
    : { localPlugins: [], port: 9515 }
  writeFileSync(file, JSON.stringify({ ...current, ...fields }), { mode: 0o600 })
}

async function waitForExtension(health: () => Promise<HealthPayload>): Promise<void> {
  const deadline = Date.now() + EXTENSION_CONNECT_TIMEOUT_MS
  while (!(await health()).extensionConnected) {
    if (Date.now() > deadline)
      throw new Error(`the extension did not connect within ${EXTENSION_CONNECT_TIMEOUT_MS} ms`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}
