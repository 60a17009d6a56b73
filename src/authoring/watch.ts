/**
 * `bridge-plugin build --watch`: rebuild when a source file, package.json or the icon changes. Builds
 * never overlap; changes during a build schedule exactly one more.
 */
import { watch as chokidarWatch } from 'chokidar'
import { relative, sep } from 'node:path'

const IGNORED = ['node_modules', 'dist', '.git']
const DEBOUNCE_MS = 100

export interface Watcher {
  close(): Promise<void>
}

/** Resolves once the initial scan is done, so a change made after that is never missed. */
export async function watchPlugin(
  dir: string,
  rebuild: (changed: string[]) => Promise<void>,
): Promise<Watcher> {
  const watcher = chokidarWatch(dir, {
    ignoreInitial: true,
    ignored: (path: string) => {
      const rel = relative(dir, path)
      return rel.split(sep).some((part) => IGNORED.includes(part))
    },
  })
  let pending = new Set<string>()
  let timer: NodeJS.Timeout | undefined
  let running: Promise<void> | undefined

  const flush = async (): Promise<void> => {
    if (running) return
    const changed = [...pending]
    pending = new Set()
    running = rebuild(changed).finally(() => {
      running = undefined
      if (pending.size) void flush()
    })
    await running
  }
  watcher.on('all', (_event, path) => {
    pending.add(relative(dir, path))
    clearTimeout(timer)
    timer = setTimeout(() => void flush(), DEBOUNCE_MS)
  })
  await new Promise<void>((resolve) => watcher.once('ready', () => resolve()))
  return {
    close: async () => {
      clearTimeout(timer)
      await watcher.close()
      await running
    },
  }
}
