/**
 * `bridge demo [--site-port <n>]`: the five-minute walk-through without a checkout. It installs the
 * demo plugin from the files this package ships (examples/notes-plugin: copied to `<config>/demo/`,
 * built there with this package's SDK, added to `localPlugins`, and a running daemon asked to load
 * it), starts the demo notes site (examples/demo-site) on 127.0.0.1 in the foreground, and says what
 * to do next. The plugin matches only the site's own port. Ctrl-C stops the site; the plugin stays.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import type { CAC } from 'cac'
import { ensurePrivateDir } from '../../src/config/atomicWrite'
import { bridgePaths, configDirFromEnv } from '../../src/config/paths'
import { parsePort } from '../../src/config/port'
import { runningDaemonTarget } from '../shared/daemonTarget'
import { errorText, fail, say } from '../shared/output'

export const DEMO_SITE_PORT = 8787
const DEMO_PLUGIN = 'notes'

interface DemoSite {
  url: string
  port: number
  close(): Promise<void>
}

export function registerDemo(cli: CAC): void {
  cli
    .command('demo', 'Try bridge on a demo notes site: installs its plugin and serves the site on 127.0.0.1')
    .option('--site-port <port>', `The demo site's port (default ${DEMO_SITE_PORT}; 0 picks a free one)`)
    .action((flags: { port?: unknown; sitePort?: unknown }) => demo(flags))
}

/** The folder this package's examples/ is in: the checkout, or the installed package. */
function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url))
  for (let i = 0; i < 6; i++) {
    if (existsSync(join(dir, 'examples', 'demo-site', 'server.mjs'))) return dir
    dir = dirname(dir)
  }
  throw new Error(
    `the demo files (examples/) are not beside ${fileURLToPath(import.meta.url)}; reinstall bridge`,
  )
}

async function demo(flags: { port?: unknown; sitePort?: unknown }): Promise<void> {
  let sitePort: number
  try {
    sitePort = flags.sitePort === undefined ? DEMO_SITE_PORT : parsePort(flags.sitePort, { listen: true })
  } catch (error) {
    return fail(`--site-port: ${errorText(error)}`)
  }
  const root = packageRoot()
  const paths = bridgePaths(configDirFromEnv())
  const pluginDir = join(paths.dir, 'demo', 'notes-plugin')

  // The site first: a port in use is the one thing that stops the demo, and nothing is written yet.
  const { startDemoSite } = (await import(
    pathToFileURL(join(root, 'examples', 'demo-site', 'server.mjs')).href
  )) as { startDemoSite: (options: { port: number }) => Promise<DemoSite> }
  let site: DemoSite
  try {
    site = await startDemoSite({ port: sitePort })
  } catch (error) {
    const inUse = (error as { code?: unknown }).code === 'EADDRINUSE'
    return fail(
      inUse
        ? `port ${sitePort} is in use: run the demo site on another with \`bridge demo --site-port <port>\``
        : `the demo site did not start: ${errorText(error)}`,
    )
  }

  try {
    ensurePrivateDir(paths.dir)
    copyDemoPlugin(join(root, 'examples', 'notes-plugin'), pluginDir, site.port)
    // The authoring code (esbuild) is loaded only here, not by every `bridge` command.
    const { buildPlugin } = await import('../../src/authoring/buildPlugin')
    const { registerLocalPlugin } = await import('../../src/authoring/registerLocal')
    const built = await buildPlugin(pluginDir)
    registerLocalPlugin(pluginDir, paths.dir)
    say(
      `Installed the demo plugin ${built.manifest.displayName} (${built.manifest.name}: ${built.manifest.tools.length} tools) from this package into ${pluginDir}`,
    )
  } catch (error) {
    await site.close()
    return fail(`the demo plugin could not be installed: ${errorText(error)}`)
  }
  const daemonRuns = await loadIntoDaemon(flags.port, pluginDir)
  say(`The demo notes site runs on ${site.url} (Ctrl-C stops it; the plugin stays installed).`)
  say()
  say('Next:')
  const steps = [
    ...(daemonRuns ? [] : ['Start bridge in another terminal: `bridge start` (it loads the demo plugin).']),
    `Load the extension once: chrome://extensions, Developer mode on, Load unpacked: ${paths.extensionDir}`,
    `Open ${site.url} in that browser and sign in with any name.`,
    `Turn the plugin's tools on: \`bridge config set plugin-permission.${DEMO_PLUGIN} ask\` (or All tools: ask for Demo Notes in the side panel), then reload the notes tab.`,
    'Ask your agent to list your notes (`bridge start --show-config` prints its MCP configuration) and approve the call in the side panel.',
  ]
  steps.forEach((step, i) => say(`  ${i + 1}. ${step}`))

  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGINT', resolve)
    process.once('SIGTERM', resolve)
  })
  await site.close()
  say(`${signal}: the demo site stopped.`)
}

/**
 * The example plugin's sources into `to` (what was there before is replaced), its URL patterns set
 * to the demo site's port, so it matches that site and no other page on the machine.
 */
function copyDemoPlugin(from: string, to: string, port: number): void {
  rmSync(to, { recursive: true, force: true })
  mkdirSync(to, { recursive: true })
  for (const entry of ['package.json', 'src', 'icon.svg'])
    cpSync(join(from, entry), join(to, entry), { recursive: true })
  const file = join(to, 'package.json')
  const pkg = JSON.parse(readFileSync(file, 'utf8')) as { bridge: { urlPatterns: string[] } }
  pkg.bridge.urlPatterns = [`http://127.0.0.1:${port}/*`, `http://localhost:${port}/*`]
  writeFileSync(file, `${JSON.stringify(pkg, null, 2)}\n`)
}

/** Asks a running daemon to load the plugin; false when none runs (it loads it when it starts). */
async function loadIntoDaemon(portFlag: unknown, pluginDir: string): Promise<boolean> {
  const { requestReload } = await import('../../src/authoring/requestReload')
  try {
    const { port, secret } = await runningDaemonTarget(portFlag, { brokenConfig: 'ignore' })
    const outcome = await requestReload({ port, secret, pluginName: DEMO_PLUGIN, pluginDir })
    switch (outcome.kind) {
      case 'reloaded':
        if (outcome.loaded) say(`The daemon on port ${port} loaded it.`)
        else
          say(
            `The daemon on port ${port} reloaded, but did not load it: ${outcome.failure ?? 'see `bridge logs`'}`,
          )
        return true
      case 'dev-mode':
        say(`The daemon on port ${port} runs in dev mode and loads it by itself.`)
        return true
      case 'no-daemon':
        return false
      default:
        say(`The daemon on port ${port} did not reload: ${outcome.message}`)
        return true
    }
  } catch (error) {
    say(`Could not ask the daemon to load it: ${errorText(error)}`)
    return false
  }
}
