/**
 * What SIGTERM and SIGINT do to a running daemon: a clean stop, never the default kill mid-write.
 */
import { log } from './log'

const logger = log.withTag('daemon')

/** What a signal needs of the daemon (src/daemon.ts `Daemon`): its clean stop. */
export interface Stoppable {
  stop(): Promise<void>
}

/**
 * Stops the daemon gracefully on SIGTERM or SIGINT, then exits 0 (1 if stopping failed). Call it
 * before `createDaemon` and hand the daemon over with `attach`: a signal that arrives while the daemon
 * is still starting (or just after it printed its address) is then held until it can stop cleanly,
 * never left to the default action that would kill the process mid-write.
 */
export function stopOnSignals(): { attach(daemon: Stoppable): void } {
  let daemon: Stoppable | undefined
  let requested: string | undefined
  let stopping = false
  const stop = () => {
    if (stopping || !daemon || !requested) return
    stopping = true
    logger.info(`${requested} received, shutting down`)
    daemon.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error('shutdown failed:', error)
        process.exit(1)
      },
    )
  }
  const onSignal = (signal: string) => {
    if (requested) {
      // A second Ctrl-C: the user does not want to wait for the clean shutdown.
      logger.warn(`${signal} again: exiting without waiting for the shutdown to finish`)
      process.exit(1)
    }
    requested = signal
    stop()
  }
  process.on('SIGTERM', () => onSignal('SIGTERM'))
  process.on('SIGINT', () => onSignal('SIGINT'))
  return {
    attach(started) {
      daemon = started
      stop()
    },
  }
}
