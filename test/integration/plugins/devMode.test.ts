// Dev mode: the daemon watches local plugin builds and config.json and reloads on its own.
import { spawn } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildPlugin } from '../../../src/authoring/buildPlugin'
import { ROOT, startDaemon, tempConfigDir, type RunningDaemon } from '../../helpers/daemon'
import { copyFixture, copyPlugin, NOTES_PLUGIN_DIR, tempDir } from '../../fixtures/plugins'

// These tests spawn processes (daemon, npm, builds); give them room on a loaded machine.
const SLOW = { timeout: 90_000 }

interface Health {
  pluginDetails: Array<{ name: string; toolCount: number }>
  failedPlugins: Array<{ path: string }>
  reloadCount: number
  fileWatcher?: {
    watchedPlugins: number
    pendingPlugins: number
    lastPollAt: number | null
    pollDetections: number
  }
}

describe('dev mode', SLOW, () => {
  let tmp: ReturnType<typeof tempDir>
  let daemon: RunningDaemon
  let notes: string
  let unbuilt: string
  const health = async () => (await (await daemon.fetch('/health')).json()) as Health
  async function until(check: (h: Health) => boolean, timeoutMs = 60_000): Promise<Health> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const h = await health()
      if (check(h)) return h
      if (Date.now() > deadline) throw new Error(`condition not reached; last health: ${JSON.stringify(h)}`)
      await new Promise((r) => setTimeout(r, 100))
    }
  }

  beforeAll(async () => {
    tmp = tempDir('dev')
    notes = copyPlugin(NOTES_PLUGIN_DIR, tmp.dir, 'notes')
    await buildPlugin(notes)
    unbuilt = copyFixture('good', tmp.dir)
    const configDir = tempConfigDir()
    writeFileSync(join(configDir, 'config.json'), JSON.stringify({ localPlugins: [notes, unbuilt] }))
    daemon = await startDaemon({ configDir, args: ['--dev'] })
  })
  afterAll(async () => {
    await daemon?.stop()
    tmp?.cleanup()
  })

  it('watches built plugins and counts folders without a build as pending', async () => {
    const h = await health()
    expect(h.fileWatcher).toMatchObject({ watchedPlugins: 1, pendingPlugins: 1 })
    expect(h.pluginDetails.map((p) => p.name)).toEqual(['notes'])
    expect(h.failedPlugins.map((f) => f.path)).toEqual([unbuilt])
    const polled = await until((x) => x.fileWatcher?.lastPollAt !== null)
    expect(polled.fileWatcher?.lastPollAt).toBeGreaterThan(0)
  })

  it('reloads by itself when a watched plugin is rebuilt', async () => {
    const before = (await health()).reloadCount
    const source = join(notes, 'src', 'index.ts')
    writeFileSync(
      source,
      readFileSync(source, 'utf8').replace(
        'tools: [whoami, listNotes, createNote, deleteNote, slowCount]',
        'tools: [whoami, listNotes]',
      ),
    )
    await buildPlugin(notes)
    const after = await until((h) => h.pluginDetails.find((p) => p.name === 'notes')?.toolCount === 2)
    expect(after.reloadCount).toBeGreaterThan(before)
  })

  it('lets bridge-plugin build leave the reload to the dev-mode daemon', async () => {
    const before = (await health()).reloadCount
    const build = await new Promise<string>((resolve) => {
      const env = {
        ...process.env,
        BRIDGE_CONFIG_DIR: daemon.configDir,
        BRIDGE_PORT: String(daemon.port),
        NO_COLOR: '1',
      }
      const proc = spawn(
        process.execPath,
        [join(ROOT, 'dist', 'cli', 'bridgePlugin.js'), 'build', '--no-register'],
        { cwd: notes, env },
      )
      let out = ''
      proc.stdout.on('data', (c: Buffer) => (out += c.toString()))
      proc.stderr.on('data', (c: Buffer) => (out += c.toString()))
      proc.once('exit', () => resolve(out))
    })
    expect(build).toContain(`the daemon on port ${daemon.port} runs in dev mode and reloads notes by itself`)
    expect((await until((h) => h.reloadCount > before)).reloadCount).toBeGreaterThan(before)
  })

  it('picks up a pending plugin once it is built', async () => {
    await buildPlugin(unbuilt)
    const h = await until((x) => x.pluginDetails.some((p) => p.name === 'good'))
    expect(h.failedPlugins).toEqual([])
    // Its dist/ did not exist, so no watcher was on it: the modification-time poll found it.
    expect(h.fileWatcher?.pollDetections).toBeGreaterThanOrEqual(1)
    expect(await until((x) => x.fileWatcher?.watchedPlugins === 2)).toMatchObject({
      fileWatcher: { pendingPlugins: 0 },
    })
  })

  it('reloads when config.json is edited', async () => {
    const file = join(daemon.configDir, 'config.json')
    const config = JSON.parse(readFileSync(file, 'utf8'))
    writeFileSync(file, JSON.stringify({ ...config, localPlugins: [notes] }))
    const h = await until((x) => !x.pluginDetails.some((p) => p.name === 'good'))
    expect(h.pluginDetails.map((p) => p.name)).toEqual(['notes'])
    expect((await until((x) => x.fileWatcher?.watchedPlugins === 1)).fileWatcher?.pendingPlugins).toBe(0)
  })
})
