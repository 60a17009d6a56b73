/** `bridge status` lists loaded plugins (tab state, tools, source) and the ones that failed, with why. */
import { spawn } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { copyPlugin, NOTES_PLUGIN_DIR, tempDir } from '../../fixtures/plugins'
import { ROOT, startDaemon, waitForBuild, type RunningDaemon } from '../../helpers/daemon'
import { runCli } from './runCli'

const PLUGIN_CLI = join(ROOT, 'dist/cli/bridgePlugin.js')

async function buildPlugin(dir: string): Promise<void> {
  await waitForBuild(PLUGIN_CLI)
  const code = await new Promise<number | null>((resolve) => {
    const proc = spawn(
      process.execPath,
      [PLUGIN_CLI, 'build', '--dir', dir, '--no-register', '--no-reload'],
      {
        cwd: dir,
        stdio: 'ignore',
      },
    )
    proc.once('exit', resolve)
  })
  expect(code).toBe(0)
}

describe('bridge status with plugins', () => {
  let tmp: ReturnType<typeof tempDir>
  let daemon: RunningDaemon
  let missing: string
  beforeAll(async () => {
    tmp = tempDir('status-plugins')
    const notes = copyPlugin(NOTES_PLUGIN_DIR, tmp.dir, 'notes-plugin')
    await buildPlugin(notes)
    missing = join(tmp.dir, 'gone')
    const configDir = join(tmp.dir, 'config')
    mkdirSync(configDir)
    writeFileSync(join(configDir, 'config.json'), JSON.stringify({ localPlugins: [notes, missing] }))
    daemon = await startDaemon({ configDir })
  })
  afterAll(async () => {
    await daemon?.stop()
    tmp?.cleanup()
  })

  it('shows each plugin with its tab state, tool count and source, and each failed plugin with its error', async () => {
    const result = await runCli(['status', '--port', String(daemon.port)], daemon.configDir)
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/plugins\s+1\n/)
    expect(result.stdout).toMatch(/\n\s+notes\s+closed\s+\d+ tools\s+local\n/)
    expect(result.stdout).toMatch(/tools\s+\d+: [1-9]\d* from plugins, \d+ built-in \(/)
    expect(result.stdout).toContain('failed plugins')
    expect(result.stdout).toContain(`${missing}: `)
  })
})
