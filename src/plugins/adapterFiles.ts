/**
 * Adapter bundles of loaded plugins are copied to `<config>/extension/adapters/<name>.js` (dirs 0700,
 * files 0600, atomic writes), where the extension reads them. Files of plugins that are gone are
 * removed. Unchanged files are not rewritten. With a `written` record (kept by the daemon across
 * reloads), a copy whose file identity is the one recorded after it was last written or checked is
 * not even read again.
 */
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { atomicWriteFile, ensurePrivateDir } from '../config/atomicWrite'
import { bridgePaths } from '../config/paths'
import { fileIdentity } from './loadCache'

export interface AdapterSource {
  file: string
  hash: string
  /** The bytes, or how to read them when the copy has to be written. */
  bytes: Buffer | (() => Buffer)
}

export function syncAdapterFiles(
  configDir: string,
  adapters: ReadonlyMap<string, AdapterSource>,
  written?: Map<string, string>,
): void {
  const { extensionDir, adaptersDir } = bridgePaths(configDir)
  ensurePrivateDir(configDir)
  ensurePrivateDir(extensionDir)
  ensurePrivateDir(adaptersDir)
  const keep = new Set<string>()
  for (const { file, bytes, hash } of adapters.values()) {
    keep.add(file)
    const target = join(adaptersDir, file)
    const known = written?.get(target)
    if (known !== undefined && known === `${hash}|${fileIdentity(target)}`) continue
    if (!existsSync(target) || createHash('sha256').update(readFileSync(target)).digest('hex') !== hash)
      atomicWriteFile(target, typeof bytes === 'function' ? bytes() : bytes)
    written?.set(target, `${hash}|${fileIdentity(target)}`)
  }
  for (const entry of readdirSync(adaptersDir)) {
    if (entry.endsWith('.js') && !keep.has(entry)) {
      rmSync(join(adaptersDir, entry), { force: true })
      written?.delete(join(adaptersDir, entry))
    }
  }
}
