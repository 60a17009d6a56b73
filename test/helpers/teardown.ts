/**
 * What a test set up, stopped last-first: each stop runs even when one before it throws (a browser
 * that will not close must not leave the daemon running), and the errors are thrown once all have
 * run. Running it again does nothing.
 *
 * @example
 *   const teardown = createTeardown()
 *   const daemon = teardown.add(await startDaemon(), (d) => d.stop())
 *   await teardown.run()
 */
export interface Teardown {
  /** Registers how to stop `thing`; returns `thing`. */
  add<T>(thing: T, stop: (thing: T) => unknown): T
  /** Runs every stop registered so far, the newest first. */
  run(): Promise<void>
}

export function createTeardown(): Teardown {
  const stops: (() => unknown)[] = []
  return {
    add(thing, stop) {
      stops.push(() => stop(thing))
      return thing
    },
    async run() {
      const errors: unknown[] = []
      for (const stop of stops.splice(0).reverse()) {
        try {
          await stop()
        } catch (error) {
          errors.push(error)
        }
      }
      if (errors.length === 1) throw errors[0]
      if (errors.length > 1) throw new AggregateError(errors, `${errors.length} stops failed`)
    },
  }
}
