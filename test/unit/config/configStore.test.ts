import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createActor, fromPromise } from 'xstate'
import { configStoreMachine } from '../../../machines/configStoreMachine'
import { ensureConfigFile } from '../../../src/config/configFile'
import { createConfigStore, persistConfigChange, type ConfigStore } from '../../../src/config/configStore'

let dir: string
let path: string
let store: ConfigStore
let stop: () => void
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bridge-store-'))
  path = join(dir, 'config.json')
  const { config } = ensureConfigFile(path)
  const actor = createActor(
    configStoreMachine.provide({ actors: { persist: fromPromise(persistConfigChange(path)) } }),
    {
      input: { config },
    },
  )
  actor.start()
  stop = () => actor.stop()
  store = createConfigStore(actor)
})
afterEach(() => {
  stop()
  rmSync(dir, { recursive: true, force: true })
})

const onDisk = () => JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>

describe('configStore', () => {
  it('loses no edit when 50 read-modify-writes race', async () => {
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        store.update((c) => ({ ...c, localPlugins: [...c.localPlugins, `./p${i}`] })),
      ),
    )
    expect(results.at(-1)!.localPlugins).toHaveLength(50)
    expect(new Set(onDisk().localPlugins as string[])).toEqual(
      new Set(Array.from({ length: 50 }, (_, i) => `./p${i}`)),
    )
    expect(store.get().localPlugins).toHaveLength(50)
  })

  it('resolves with the new config once it is on disk', async () => {
    const next = await store.update((c) => ({ ...c, permissions: { notes: { permission: 'ask' } } }))
    expect(next.permissions).toEqual({ notes: { permission: 'ask' } })
    expect(onDisk().permissions).toEqual({ notes: { permission: 'ask' } })
  })

  it('rejects an update that breaks the schema and keeps the file and the state as they were', async () => {
    await expect(store.update((c) => ({ ...c, port: -1 }))).rejects.toThrow(/port/)
    expect(onDisk().port).toBe(9515)
    expect(store.get().port).toBe(9515)
  })

  it('rejects when the mutator throws, and keeps serving later updates', async () => {
    await expect(
      store.update(() => {
        throw new Error('nope')
      }),
    ).rejects.toThrow('nope')
    await expect(store.update((c) => ({ ...c, port: 9600 }))).resolves.toMatchObject({ port: 9600 })
  })

  it('hands out the current snapshot itself, frozen: trying to change it throws and changes nothing', async () => {
    expect(store.get()).toBe(store.get())
    expect(() => store.get().localPlugins.push('./sneaky')).toThrow(TypeError)
    expect(store.get().localPlugins).toEqual([])
    // A change makes a new snapshot.
    const before = store.get()
    await store.update((config) => ({ ...config, port: 9601 }))
    expect(store.get()).not.toBe(before)
    expect(store.get().port).toBe(9601)
  })

  it('reload() adopts an outside edit, and rejects a broken file without adopting it', async () => {
    writeFileSync(path, JSON.stringify({ port: 9700 }))
    await expect(store.reload()).resolves.toMatchObject({ port: 9700 })
    expect(store.get().port).toBe(9700)
    writeFileSync(path, '{ broken')
    await expect(store.reload()).rejects.toThrow(/not valid JSON/)
    expect(store.get().port).toBe(9700)
    expect(readFileSync(path, 'utf8')).toBe('{ broken')
  })
})

describe('configStore while config.json is edited by hand', () => {
  it('applies an update on top of what is on disk now', async () => {
    writeFileSync(path, JSON.stringify({ port: 9700, localPlugins: ['./by-hand'] }))
    const next = await store.update((c) => ({ ...c, permissions: { notes: { permission: 'auto' } } }))
    expect(next).toMatchObject({
      port: 9700,
      localPlugins: ['./by-hand'],
      permissions: { notes: { permission: 'auto' } },
    })
    expect(onDisk()).toMatchObject({ port: 9700, localPlugins: ['./by-hand'] })
  })

  it('refuses an update while the file is broken and never overwrites it', async () => {
    writeFileSync(path, '{ "port": 9700, }')
    await expect(store.update((c) => ({ ...c, port: 9800 }))).rejects.toThrow(
      /config\.json is not valid JSON/,
    )
    expect(readFileSync(path, 'utf8')).toBe('{ "port": 9700, }')
  })

  it('starts from the defaults when the file was deleted (bridge config reset)', async () => {
    await store.update((c) => ({ ...c, port: 9600, localPlugins: ['./old'] }))
    rmSync(path)
    const next = await store.update((c) => ({ ...c, permissions: { notes: { permission: 'ask' } } }))
    expect(next).toEqual({ localPlugins: [], permissions: { notes: { permission: 'ask' } }, port: 9515 })
    expect(onDisk()).toEqual(next)
  })
})
