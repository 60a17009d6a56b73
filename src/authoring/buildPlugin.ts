/**
 * `bridge-plugin build`, without the CLI: package.json -> tool definitions -> dist/tools.json and
 * dist/adapter.iife.js. Registration in config.json and the daemon reload are separate steps
 * (`registerLocalPlugin`, `requestReload`) so each can fail or be skipped on its own.
 */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { atomicWriteFile } from '../config/atomicWrite'
import type { PluginManifest } from '../protocol/manifest'
import { SDK_VERSION } from '../protocol/constants'
import type { Plugin } from 'esbuild'
import { bundle, loadDefinition } from './loadDefinition'
import { sdkResolver } from './sdkLocation'
import { createManifest } from './manifest'
import { readPluginPackage, type PluginPackage } from './readPackage'

export interface BuildOutput {
  pkg: PluginPackage
  manifest: PluginManifest
  toolsFile: string
  adapterFile: string
  adapterBytes: number
}

const PUBLIC_FILE_MODE = 0o644
/** The virtual first module of an adapter bundle: it opens the channel. */
const CHANNEL_MODULE = 'bridge-adapter-channel-open'

/** Builds the plugin in `dir`. Throws PluginBuildError with a user-facing message on any problem. */
export async function buildPlugin(dir: string): Promise<BuildOutput> {
  const pkg = readPluginPackage(dir)
  const definition = await loadDefinition(pkg)
  const manifest = createManifest(pkg, definition)
  const adapter = await bundleAdapter(pkg)

  const distDir = join(dir, 'dist')
  mkdirSync(distDir, { recursive: true })
  const toolsFile = join(distDir, 'tools.json')
  const adapterFile = join(distDir, 'adapter.iife.js')
  // Adapter first: a watcher that reacts to tools.json then always finds the matching bundle.
  atomicWriteFile(adapterFile, adapter, PUBLIC_FILE_MODE)
  atomicWriteFile(toolsFile, `${JSON.stringify(manifest, null, 2)}\n`, PUBLIC_FILE_MODE)
  return { pkg, manifest, toolsFile, adapterFile, adapterBytes: Buffer.byteLength(adapter) }
}

/**
 * The page bundle: the SDK runtime plus the plugin, in one closure. A first module (imported before
 * the plugin's) opens the adapter's private channel, so the runtime has captured the built-ins and
 * taken the plugin's name before any plugin module runs, even one that throws; then the plugin is
 * handed to it.
 */
async function bundleAdapter(pkg: PluginPackage): Promise<string> {
  const meta = { name: pkg.name, version: pkg.version }
  const wrapper = [
    `import { attach } from '${CHANNEL_MODULE}'`,
    `import plugin from ${JSON.stringify(pkg.entry)}`,
    `attach(plugin)`,
  ].join('\n')
  const channelModule: Plugin = {
    name: 'bridge-adapter-channel',
    setup(build) {
      build.onResolve({ filter: new RegExp(`^${CHANNEL_MODULE}$`) }, () => ({
        path: CHANNEL_MODULE,
        namespace: 'bridge-adapter',
      }))
      build.onLoad({ filter: /.*/, namespace: 'bridge-adapter' }, () => ({
        contents: [
          `import { openAdapterChannel } from 'bridge/sdk/runtime'`,
          `export const attach = openAdapterChannel(${JSON.stringify(meta)}) ?? (() => undefined)`,
        ].join('\n'),
        resolveDir: pkg.dir,
        loader: 'js',
      }))
    },
  }
  return bundle(pkg, {
    plugins: [sdkResolver(), channelModule],
    stdin: { contents: wrapper, resolveDir: pkg.dir, sourcefile: 'bridge-adapter-entry.js', loader: 'js' },
    format: 'iife',
    target: 'chrome120',
    banner: {
      js: `/* bridge adapter ${pkg.name}@${pkg.version}, sdk ${SDK_VERSION}. Built by bridge-plugin. */`,
    },
    legalComments: 'none',
  })
}
