/**
 * The promise API over the `configStore` actor. Every read-modify-write of config.json goes through
 * `update`, which the actor serializes; the returned promise settles once the file is on disk.
 *
 * @example
 *   await configStore.update((config) => ({ ...config, port: 9600 }))
 */
import { randomUUID } from 'node:crypto'
import { fromPromise, type ActorRefFrom } from 'xstate'
import type {
  ConfigChange,
  ConfigDocument,
  configStoreMachine,
  PersistInput,
} from '../../machines/configStoreMachine'
import { configStoreOf, type SystemLookup } from '../../machines/systemActors'
import { readConfigFile, updateConfigFileAsync } from './configFile'
import { isBridgeError } from '../errors'
import type { Config } from './schema'

export interface ConfigStore {
  /**
   * The config as last written or read: the actor's current snapshot itself, not a copy (read on every
   * call). Never mutate it; a change goes through `update`, which makes a new one.
   */
  get(): Readonly<Config>
  /** Applies `mutate` to a copy of the current config and persists it atomically; serialized with every other change. */
  update(mutate: (current: Config) => Config): Promise<Config>
  /** Re-reads config.json (after an outside edit). Rejects with the file's problem if it is broken. */
  reload(): Promise<Config>
}

/** Freezes a config snapshot and everything in it, so a reader that tries to change it fails loudly. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const child of Object.values(value)) deepFreeze(child)
  }
  return value
}

export function createConfigStore(actor: ActorRefFrom<typeof configStoreMachine>): ConfigStore {
  const submit = (change: ConfigChange): Promise<Config> =>
    new Promise((resolve, reject) => {
      const requestId = randomUUID()
      const done = actor.on('config.changed', (event) => {
        if (event.requestId !== requestId) return
        unsubscribe()
        resolve(structuredClone(event.config) as Config)
      })
      const failed = actor.on('config.failed', (event) => {
        if (event.requestId !== requestId) return
        unsubscribe()
        // A BridgeError (disk_write_failed, config_locked, config_invalid) reaches the caller as it is.
        reject(isBridgeError(event.cause) ? event.cause : new Error(event.message))
      })
      const unsubscribe = () => (done.unsubscribe(), failed.unsubscribe())
      actor.send({ type: 'config.change', requestId, change })
    })

  return {
    // Frozen once per snapshot (Object.isFrozen is the check): reads stay as cheap as a property access.
    get: () => deepFreeze(actor.getSnapshot().context.config as Config),
    update: (mutate) =>
      submit({ kind: 'update', mutate: (current) => mutate(structuredClone(current) as Config) }),
    reload: () => submit({ kind: 'reload' }),
  }
}

/** The `persist` effect for the configStore machine: writes (or re-reads) the file at `path`. */
export function persistConfigChange(
  path: string,
): (args: { input: PersistInput }) => Promise<ConfigDocument> {
  // A throwing mutator or a failed write rejects (config.failed).
  return async ({ input }) => {
    if (input.change.kind === 'reload') return readConfigFile(path)
    // Start from the file, not memory: `bridge config set` may have written it since (its POST
    // /reload can arrive after a side-panel change), and that edit must not be undone. A broken file
    // (a hand edit gone wrong) throws: the change fails with the file's problem, the file is kept.
    // Waiting for another process's lock does not block the daemon.
    const { mutate } = input.change
    return (await updateConfigFileAsync(path, (current) => mutate(current) as Config)).next
  }
}

/** The configStore machine's effects, for `.provide()`: config.json at `path` is written through `persist`. */
export function configStoreEffects(path: string): Parameters<typeof configStoreMachine.provide>[0] {
  return { actors: { persist: fromPromise(persistConfigChange(path)) } }
}

/** The promise API over the running system's `configStore` actor. */
export function configStoreIn(system: SystemLookup): ConfigStore {
  const actor = configStoreOf(system)
  if (!actor) throw new Error('the configStore actor is not running')
  return createConfigStore(actor)
}
