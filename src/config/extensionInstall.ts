/**
 * The extension files in `<config>/extension/`, which the user loads unpacked. `bridge start` copies
 * the built extension there on first run and whenever the bridge version changed (the daemon keeps
 * `auth.json`, `server.json` and `adapters/`, which are not part of the build), and the daemon writes
 * `server.json` = `{ "port": <n> }` once it listens, so the extension knows where to connect.
 */
import { cpSync, existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { atomicWriteFile } from './atomicWrite'

/** Files in the extension folder that belong to the daemon, never to the build. */
const KEPT = new Set(['auth.json', 'server.json', 'adapters'])

/** Chrome wants 1-4 dot-separated integers; the full version goes to `version_name`. */
export function chromeVersion(version: string): string {
  const numeric = /^(\d+)(\.\d+){0,3}/.exec(version)?.[0]
  return numeric ?? '0.0.0'
}

/** The bridge version of the installed extension files (manifest `version_name`), or null. */
export function installedExtensionVersion(extensionDir: string): string | null {
  try {
    const manifest = JSON.parse(readFileSync(join(extensionDir, 'manifest.json'), 'utf8')) as {
      version_name?: unknown
    }
    return typeof manifest.version_name === 'string' ? manifest.version_name : null
  } catch {
    return null
  }
}

/**
 * Copies the built extension (`sourceDir`, i.e. `dist/extension`) into `extensionDir` unless the
 * installed files already carry `version`. Returns true when it copied.
 */
export function installExtensionFiles(
  sourceDir: string,
  extensionDir: string,
  version: string,
  force = false,
): boolean {
  if (!existsSync(join(sourceDir, 'manifest.json'))) throw new Error(`no built extension at ${sourceDir}`)
  if (!force && installedExtensionVersion(extensionDir) === version) return false
  for (const name of readdirSync(sourceDir)) {
    if (KEPT.has(name) || name === 'manifest.json') continue
    cpSync(join(sourceDir, name), join(extensionDir, name), { recursive: true, force: true })
  }
  const manifest = JSON.parse(readFileSync(join(sourceDir, 'manifest.json'), 'utf8')) as Record<
    string,
    unknown
  >
  manifest.version = chromeVersion(version)
  manifest.version_name = version
  // manifest.json last: a half-finished copy is retried on the next start.
  atomicWriteFile(join(extensionDir, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`, 0o644)
  return true
}

/**
 * Tells the extension which port the daemon listens on: it reads this file beside its code
 * (extension/background/localFiles.ts).
 */
export function writeServerInfo(extensionDir: string, port: number): void {
  atomicWriteFile(join(extensionDir, 'server.json'), `${JSON.stringify({ port })}\n`, 0o644)
}
