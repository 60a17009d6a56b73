/**
 * Keeps `<config>/extension/` (the folder the user loads unpacked) in step with the built extension.
 * The copy itself is src/config/extensionInstall.ts (version-stamped manifest; auth.json, server.json
 * and adapters/ are kept). Here we also copy when the build changed without a version bump (a
 * rebuilt checkout), by remembering a hash of the build we installed.
 */
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { atomicWriteFile } from '../../src/config/atomicWrite'
import { installedExtensionVersion, installExtensionFiles } from '../../src/config/extensionInstall'
import type { BridgePaths } from '../../src/config/paths'
import { BRIDGE_VERSION } from '../../src/protocol/constants'

const MARKER = '.build-hash'

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

function buildHash(dir: string): string {
  const hash = createHash('sha256').update(BRIDGE_VERSION)
  for (const file of listFiles(dir).sort())
    hash
      .update(file)
      .update('\0')
      .update(readFileSync(join(dir, file)))
  return hash.digest('hex')
}

export type ExtensionInstall = 'installed' | 'updated' | 'current' | 'missing'

export function syncExtensionFiles(
  paths: BridgePaths,
  sourceDir: string = builtExtensionDir(),
): ExtensionInstall {
  if (!existsSync(join(sourceDir, 'manifest.json'))) return 'missing'
  const hash = buildHash(sourceDir)
  const markerPath = join(paths.extensionDir, MARKER)
  const previous = existsSync(markerPath) ? readFileSync(markerPath, 'utf8').trim() : undefined
  const hadFiles = installedExtensionVersion(paths.extensionDir) !== null
  if (previous === hash && hadFiles) return 'current'
  installExtensionFiles(sourceDir, paths.extensionDir, BRIDGE_VERSION, true)
  atomicWriteFile(markerPath, `${hash}\n`)
  return hadFiles ? 'updated' : 'installed'
}
