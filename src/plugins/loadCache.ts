/**
 * What lets a reload read only the plugins that changed: a loaded plugin (manifest, adapter bytes and
 * hash, compiled validators) is reused for as long as both build files, `dist/tools.json` and
 * `dist/adapter.iife.js`, keep the same identity: inode, size, and change and modification times in
 * nanoseconds. A rebuild, a copy or an atomic rename changes at least one of them. Failed loads are
 * not kept: a broken plugin is read again on every reload, so its message stays current. The adapter
 * bytes are not kept either (a reused build has no `adapter`): they are read again only if the copy
 * under the config dir has to be rewritten.
 */
import { statSync } from 'node:fs'
import { join } from 'node:path'
import type { PluginSource } from '../protocol/manifest'
import { loadPlugin, type LoadResult } from './loadPlugin'

export interface PluginLoadCache {
  /** `loadPlugin(dir, source)`, or the previous plugin (without `adapter`) when the build files are the same. */
  load(dir: string, source: PluginSource): LoadResult
  /** Forgets every folder not in `dirs` (the ones the last discovery looked at). */
  retain(dirs: ReadonlySet<string>): void
}

export function createPluginLoadCache(): PluginLoadCache {
  const entries = new Map<string, { identity: string; result: LoadResult }>()
  return {
    load(dir, source) {
      const identity = buildIdentity(dir, source)
      const cached = entries.get(dir)
      if (identity !== undefined && cached?.identity === identity) return cached.result
      const result = loadPlugin(dir, source)
      if (result.ok && identity !== undefined)
        entries.set(dir, {
          identity,
          result: { ok: true, value: { plugin: result.value.plugin, warnings: result.value.warnings } },
        })
      else entries.delete(dir)
      return result
    },
    retain(dirs) {
      for (const dir of entries.keys()) if (!dirs.has(dir)) entries.delete(dir)
    },
  }
}

/** The identity of a file as the file system reports it; undefined when it cannot be read. */
export function fileIdentity(path: string): string | undefined {
  try {
    const s = statSync(path, { bigint: true })
    return `${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`
  } catch {
    return undefined
  }
}

function buildIdentity(dir: string, source: PluginSource): string | undefined {
  const tools = fileIdentity(join(dir, 'dist', 'tools.json'))
  const adapter = fileIdentity(join(dir, 'dist', 'adapter.iife.js'))
  return tools && adapter ? `${source}|${tools}|${adapter}` : undefined
}
