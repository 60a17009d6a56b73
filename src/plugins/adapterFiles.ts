/**
 * Adapter bundles of loaded plugins are copied to `<config>/extension/adapters/<name>.js` (dirs 0700,
 * files 0600, atomic writes), where the extension reads them. Files of plugins that are gone are
 * removed. Unchanged files are not rewritten.
 */
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { atomicWriteFile, ensurePrivateDir } from '../config/atomicWrite'
import { bridgePaths } from '../config/paths'

export function syncAdapterFiles(
  configDir: string,
  adapters: ReadonlyMap<string, { file: string; bytes: Buffer; hash: string }>,
): void {
  const { extensionDir, adaptersDir } = bridgePaths(configDir)
  ensurePrivateDir(configDir)
  ensurePrivateDir(extensionDir)
  ensurePrivateDir(adaptersDir)
  const keep = new Set<string>()
  for (const { file, bytes, hash } of adapters.values()) {
    keep.add(file)
    const target = join(adaptersDir, file)
    if (existsSync(target) && createHash('sha256').update(readFileSync(target)).digest('hex') === hash)
      continue
    atomicWriteFile(target, bytes)
  }
  for (const entry of readdirSync(adaptersDir)) {
    if (entry.endsWith('.js') && !keep.has(entry)) rmSync(join(adaptersDir, entry), { force: true })
  }
}
