/**
 * Dev mode (`BRIDGE_DEV=1` / `--dev`): watches every local plugin's `dist/` folder and config.json and
 * asks for a reload when they change. File events can be missed (editors that replace folders, network
 * and container mounts), so a modification-time poll backs the watchers up; a folder whose `dist/`
 * does not exist yet is "pending" until the poll sees it appear.
 */
import { watch, type FSWatcher } from 'chokidar'
import { existsSync, statSync } from 'node:fs'
import { join } from 'node:path'
import type { FileWatcherHealth } from '../http/health'

export const DEV_POLL_INTERVAL_MS = 2_000
const DEBOUNCE_MS = 150

export interface DevWatcherOptions {
  configFile: string
  /** Folders of the local plugins to watch (read again on every refresh). */
  localDirs(): string[]
  /** A watched file changed; `why` is for the log. */
  onChange(why: string): void
  pollIntervalMs?: number
}

export interface DevWatcher {
  /** Re-reads the plugin folders and records the current file state (call after every reload). */
  refresh(): void
  health(): FileWatcherHealth
  close(): Promise<void>
}

export function createDevWatcher(options: DevWatcherOptions): DevWatcher {
  const watchers = new Map<string, FSWatcher>()
  const signatures = new Map<string, string>()
  let pending: string[] = []
  let lastPollAt: number | null = null
  let pollDetections = 0
  let timer: NodeJS.Timeout | undefined

  const changed = (why: string) => {
    clearTimeout(timer)
    timer = setTimeout(() => options.onChange(why), DEBOUNCE_MS)
  }
  const configWatcher = watch(options.configFile, { ignoreInitial: true })
  configWatcher.on('all', () => changed('config.json changed'))

  const refresh = () => {
    const dirs = new Set(options.localDirs())
    for (const [dir, watcher] of watchers)
      if (!dirs.has(dir) || !existsSync(join(dir, 'dist'))) {
        void watcher.close()
        watchers.delete(dir)
      }
    pending = []
    signatures.clear()
    for (const dir of dirs) {
      signatures.set(dir, signature(dir))
      const dist = join(dir, 'dist')
      if (!existsSync(dist)) {
        pending.push(dir)
        continue
      }
      if (watchers.has(dir)) continue
      const watcher = watch(dist, { ignoreInitial: true, depth: 0 })
      watcher.on('all', (_event, path) => {
        if (path.endsWith('tools.json') || path.endsWith('adapter.iife.js')) changed(`${dir} rebuilt`)
      })
      watchers.set(dir, watcher)
    }
  }

  const poll = setInterval(() => {
    lastPollAt = Date.now()
    for (const [dir, before] of signatures) {
      if (signature(dir) === before) continue
      pollDetections++
      signatures.set(dir, signature(dir))
      changed(`${dir} changed (poll)`)
    }
  }, options.pollIntervalMs ?? DEV_POLL_INTERVAL_MS)
  poll.unref()

  refresh()
  return {
    refresh,
    health: () => ({
      watchedPlugins: watchers.size,
      pendingPlugins: pending.length,
      lastPollAt,
      pollDetections,
    }),
    close: async () => {
      clearInterval(poll)
      clearTimeout(timer)
      await Promise.all([configWatcher.close(), ...[...watchers.values()].map((w) => w.close())])
      watchers.clear()
    },
  }
}

/** Size and mtime of the two build files: changes when a build writes them. */
function signature(dir: string): string {
  return ['tools.json', 'adapter.iife.js']
    .map((file) => {
      try {
        const s = statSync(join(dir, 'dist', file))
        return `${s.size}:${s.mtimeMs}`
      } catch {
        return '-'
      }
    })
    .join('|')
}
