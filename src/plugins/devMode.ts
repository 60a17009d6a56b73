/**
 * Dev mode's watcher, loaded only in dev mode (chokidar comes with it): local plugin builds and
 * config.json edits ask for a reload.
 */
import { log } from '../log'
import type { DevWatcher, DevWatcherOptions } from './devWatcher'

const logger = log.withTag('daemon')

export async function startDevWatcher(
  mode: 'dev' | 'production',
  options: Omit<DevWatcherOptions, 'onChange'> & { reload(): Promise<unknown> },
): Promise<DevWatcher | undefined> {
  if (mode !== 'dev') return undefined
  const { createDevWatcher } = await import('./devWatcher')
  return createDevWatcher({
    ...options,
    onChange: (why) => {
      logger.info(`dev: ${why}; reloading plugins`)
      void options.reload()
    },
  })
}
