// The plugin author's loop: the author turns their local plugin's tools on once, then edits and
// rebuilds it again and again. Each rebuild changes the adapter's hash; in the folder that was reviewed
// that keeps the review (dev mode reloads by itself, production mode on `bridge-plugin build`). A new
// version still needs a review, and the panel's state says what changed.
import { runCommand } from '../../helpers/runCommand'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildPlugin } from '../../../src/authoring/buildPlugin'
import { ROOT, startDaemon, tempConfigDir, type RunningDaemon } from '../../helpers/daemon'
import { FakeExtension } from '../../helpers/fakeExtension'
import { connectMcp, type McpConnection } from '../../helpers/mcpClient'
import { copyPlugin, NOTES_PLUGIN_DIR, tempDir } from '../../fixtures/plugins'
import { runCli } from '../cli/runCli'

const SLOW = { timeout: 120_000 }

interface PluginStateView {
  name: string
  version: string
  adapterHash: string
  reviewed: boolean
  review?: { change: string; reviewedVersion: string }
  tools: Array<{ name: string; permission: string }>
}

/** Changes a tool's description in the plugin's source: an edit that changes the adapter bundle. */
function edit(dir: string, round: number): void {
  const file = join(dir, 'src', 'index.ts')
  const source = readFileSync(file, 'utf8')
  writeFileSync(
    file,
    source.replace(/description: 'List the notes of the signed-in user[^']*'/, () => {
      return `description: 'List the notes of the signed-in user, oldest first (edit ${round}).'`
    }),
  )
}

function bumpVersion(dir: string, version: string): void {
  const file = join(dir, 'package.json')
  writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), version }, null, 2))
}

/** `bridge-plugin build` in the plugin folder, as the author runs it. */
function bridgePluginBuild(dir: string, daemon: RunningDaemon) {
  const env = {
    ...process.env,
    BRIDGE_CONFIG_DIR: daemon.configDir,
    BRIDGE_PORT: String(daemon.port),
    NO_COLOR: '1',
  }
  return runCommand(
    process.execPath,
    [join(ROOT, 'dist', 'cli', 'bridgePlugin.js'), 'build'],
    env,
    undefined,
    dir,
  )
}

for (const mode of ['dev', 'production'] as const) {
  describe(`the author's loop on a local plugin (${mode} mode)`, SLOW, () => {
    let tmp: ReturnType<typeof tempDir>
    let daemon: RunningDaemon
    let extension: FakeExtension
    let mcp: McpConnection
    let notes: string

    const state = async (): Promise<PluginStateView> => {
      const answer = await extension.request('config.getState')
      const plugins = (answer.result as { plugins: PluginStateView[] }).plugins
      const found = plugins.find((p) => p.name === 'notes')
      if (!found) throw new Error(`notes is not loaded: ${JSON.stringify(plugins)}`)
      return found
    }
    const listed = async () =>
      (await mcp.client.listTools()).tools.map((t) => t.name).filter((n) => n.startsWith('notes_'))
    async function rebuilt(before: string): Promise<PluginStateView> {
      const deadline = Date.now() + 60_000
      for (;;) {
        const now = await state()
        if (now.adapterHash !== before) return now
        if (Date.now() > deadline) throw new Error('the daemon did not load the new build')
        await new Promise((r) => setTimeout(r, 100))
      }
    }
    /** Rebuilds as the author would in this mode: save and let the dev daemon see it, or run the build. */
    async function rebuild(): Promise<void> {
      if (mode === 'dev') await buildPlugin(notes)
      else {
        const build = await bridgePluginBuild(notes, daemon)
        expect(build.out).toMatch(/daemon reloaded in \d+ ms: 1 plugin, notes loaded/)
        expect(build.code).toBe(0)
      }
    }

    beforeAll(async () => {
      tmp = tempDir('author-loop')
      notes = copyPlugin(NOTES_PLUGIN_DIR, tmp.dir, 'notes')
      await buildPlugin(notes)
      const configDir = tempConfigDir()
      writeFileSync(join(configDir, 'config.json'), JSON.stringify({ localPlugins: [notes] }))
      daemon = await startDaemon({ configDir, args: mode === 'dev' ? ['--dev'] : [] })
      extension = await FakeExtension.connect(daemon)
      mcp = await connectMcp(daemon)
    })
    afterAll(async () => {
      await mcp?.close()
      await extension?.close()
      await daemon?.stop()
      tmp?.cleanup()
    })

    it('keeps the tools the author turned on through rebuilds of the same version', async () => {
      const set = await runCli(
        ['config', 'set', 'plugin-permission.notes', 'auto', '--port', String(daemon.port)],
        daemon.configDir,
      )
      expect(set.code).toBe(0)
      expect(await listed()).toContain('notes_list_notes')
      const onDisk = JSON.parse(readFileSync(join(daemon.configDir, 'config.json'), 'utf8'))
      expect(onDisk.permissions.notes).toMatchObject({ permission: 'auto', reviewedPath: notes })

      for (const round of [1, 2]) {
        const before = (await state()).adapterHash
        edit(notes, round)
        await rebuild()
        const after = await rebuilt(before)
        expect(after).toMatchObject({ reviewed: true, version: '0.1.0' })
        expect(after.review).toBeUndefined()
        expect(after.tools.find((t) => t.name === 'list_notes')?.permission).toBe('auto')
        // The agent's listing follows the rebuild (it is told by tools/list_changed, so it may lag the
        // extension's plugin.update by a moment).
        await expect
          .poll(
            async () =>
              (await mcp.client.listTools()).tools.find((t) => t.name === 'notes_list_notes')?.description,
          )
          .toBe(`List the notes of the signed-in user, oldest first (edit ${round}).`)
      }
    })

    it('turns the tools off at a new version and says which version was reviewed', async () => {
      const before = (await state()).adapterHash
      bumpVersion(notes, '0.2.0')
      await rebuild()
      const after = await rebuilt(before)
      expect(after).toMatchObject({
        reviewed: false,
        version: '0.2.0',
        review: { change: 'version', reviewedVersion: '0.1.0' },
      })
      expect(after.tools.every((t) => t.permission === 'off')).toBe(true)
      expect(await listed()).toEqual([])

      const review = await extension.request('config.markReviewed', { plugin: 'notes', version: '0.2.0' })
      expect(review.result).toEqual({ ok: true })
      expect(await state()).toMatchObject({ reviewed: true })
      expect(await listed()).toContain('notes_list_notes')
    })
  })
}
