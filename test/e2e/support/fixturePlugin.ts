// Builds a plugin the way a developer does (`bridge-plugin build` from dist/cli) in a temp copy, so
// tests never write into the repository, and describes it as the daemon would in `sync.full`.
import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import type { Permission, PluginManifest, PluginState } from '../../../src/protocol/manifest'
import { forDemoSitesOnAnyPort } from '../../fixtures/plugins'
import { daemonEnv, ROOT } from '../../helpers/daemon'

const run = promisify(execFile)
export const NOTES_PLUGIN_SOURCE = join(ROOT, 'examples', 'notes-plugin')

export interface BuiltPlugin {
  dir: string
  manifest: PluginManifest
  adapter: Buffer
  /** The plugin as `sync.full` carries it, with every tool at `permission`. */
  state(permission?: Permission): PluginState
  /** Copies the adapter where the extension loads it: `<extensionDir>/adapters/<name>.js`. */
  installAdapter(extensionDir: string): void
  /** Sets the package version and runs `bridge-plugin build` again, reloading the daemon on `port`. */
  rebuild(version: string, configDir: string, port: number): Promise<void>
  remove(): void
}

/**
 * Copies `source` (default: the example notes plugin) to a temp folder and runs `bridge-plugin build`
 * there. With `configDir` the build registers the folder in that config's localPlugins (the daemon
 * discovers it); without, it builds only.
 */
export async function buildFixturePlugin(
  opts: { source?: string; configDir?: string; port?: number } = {},
): Promise<BuiltPlugin> {
  const dir = mkdtempSync(join(tmpdir(), 'bridge-plugin-'))
  const source = opts.source ?? NOTES_PLUGIN_SOURCE
  for (const entry of ['package.json', 'src', 'icon.svg'])
    cpSync(join(source, entry), join(dir, entry), { recursive: true, force: true })
  if (source === NOTES_PLUGIN_SOURCE) forDemoSitesOnAnyPort(dir)
  const scratch = opts.configDir ?? mkdtempSync(join(tmpdir(), 'bridge-build-config-'))
  const args = [join(ROOT, 'dist/cli/bridgePlugin.js'), 'build', '--dir', dir]
  if (!opts.configDir) args.push('--no-register')
  // Without a port the build would look for a daemon on the default one, which may be someone else's.
  if (opts.port !== undefined) args.push('--port', String(opts.port))
  else args.push('--no-reload')
  try {
    await run(process.execPath, args, { cwd: dir, env: daemonEnv(scratch, 'node'), timeout: 60_000 })
  } catch (err) {
    rmSync(dir, { recursive: true, force: true })
    throw err
  } finally {
    if (!opts.configDir) rmSync(scratch, { recursive: true, force: true })
  }
  const manifest = JSON.parse(readFileSync(join(dir, 'dist/tools.json'), 'utf8')) as PluginManifest
  const adapter = readFileSync(join(dir, 'dist/adapter.iife.js'))
  return {
    dir,
    manifest,
    adapter,
    state: (permission = 'auto') => ({
      name: manifest.name,
      displayName: manifest.displayName,
      version: manifest.version,
      source: 'local',
      sdkVersion: manifest.sdkVersion,
      urlPatterns: manifest.urlPatterns,
      adapterFile: `${manifest.name}.js`,
      adapterHash: createHash('sha256').update(adapter).digest('hex'),
      ...(manifest.iconSvg ? { iconSvg: manifest.iconSvg } : {}),
      permission,
      reviewed: true,
      tools: manifest.tools.map((t) => ({
        name: t.name,
        displayName: t.displayName,
        description: t.description,
        permission,
        ...(t.annotations ? { annotations: t.annotations } : {}),
      })),
      path: dir,
    }),
    installAdapter(extensionDir) {
      mkdirSync(join(extensionDir, 'adapters'), { recursive: true })
      writeFileSync(join(extensionDir, 'adapters', `${manifest.name}.js`), adapter)
    },
    async rebuild(version, configDir, port) {
      const pkgFile = join(dir, 'package.json')
      writeFileSync(
        pkgFile,
        JSON.stringify({ ...(JSON.parse(readFileSync(pkgFile, 'utf8')) as object), version }, null, 2),
      )
      const build = [join(ROOT, 'dist/cli/bridgePlugin.js'), 'build', '--dir', dir, '--port', String(port)]
      await run(process.execPath, build, { cwd: dir, env: daemonEnv(configDir, 'node'), timeout: 60_000 })
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  }
}
