/**
 * The extension folder the user loads unpacked: `<config>/extension/`. `bridge start` copies the
 * built extension (dist/extension) there, beside the files it owns (auth.json, server.json,
 * adapters/). It copies again only when the build differs from what was installed (new CLI version,
 * or a rebuilt checkout), and removes files an older build left behind.
 */
import { createHash } from 'node:crypto'
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { atomicWriteFile } from '../../src/config/atomicWrite'
import type { BridgePaths } from '../../src/config/paths'
import { BRIDGE_VERSION } from '../../src/protocol/constants'

/** Files in the extension folder that belong to the daemon and the user, never to the build. */
const KEPT = new Set(['auth.json', 'server.json', 'adapters', '.installed.json'])
const MARKER = '.installed.json'

/** dist/extension beside the running CLI bundle (dist/cli/bridge.js). */
export function builtExtensionDir(): string {
  return fileURLToPath(new URL('../extension', import.meta.url))
}

function listFiles(dir: string, base = dir): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name)
    return statSync(full).isDirectory() ? listFiles(full, base) : [relative(base, full)]
  })
}

function buildHash(dir: string, files: string[]): string {
  const hash = createHash('sha256').update(BRIDGE_VERSION)
  for (const file of [...files].sort())
    hash
      .update(file)
      .update('\0')
      .update(readFileSync(join(dir, file)))
  return hash.digest('hex')
}

export type ExtensionInstall = 'installed' | 'updated' | 'current' | 'missing'

export function installExtensionFiles(
  paths: BridgePaths,
  sourceDir: string = builtExtensionDir(),
): ExtensionInstall {
  if (!existsSync(join(sourceDir, 'manifest.json'))) return 'missing'
  const files = listFiles(sourceDir)
  const hash = buildHash(sourceDir, files)
  const markerPath = join(paths.extensionDir, MARKER)
  const previous = existsSync(markerPath)
    ? (JSON.parse(readFileSync(markerPath, 'utf8')) as { hash?: string }).hash
    : undefined
  if (previous === hash) return 'current'
  const wanted = new Set(files.map((file) => file.split('/')[0]!))
  for (const name of readdirSync(paths.extensionDir)) {
    if (!KEPT.has(name) && !wanted.has(name))
      rmSync(join(paths.extensionDir, name), { recursive: true, force: true })
  }
  for (const name of wanted)
    cpSync(join(sourceDir, name), join(paths.extensionDir, name), { recursive: true, force: true })
  atomicWriteFile(markerPath, `${JSON.stringify({ version: BRIDGE_VERSION, hash }, null, 2)}\n`)
  return previous === undefined ? 'installed' : 'updated'
}
